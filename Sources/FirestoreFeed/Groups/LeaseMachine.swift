/// One member's side of a feed group's leases, as a value: it is told what the table holds and what the store did,
/// and says what to write and whether it may deliver a shard. Time is the member's own monotonic clock, as a
/// duration since any fixed origin; nothing depends on other members' clocks.
///
/// - Expiry by observation (the Kinesis Client Library's rule): a lease whose version (owner, generation,
///   heartbeat) this member has seen unchanged for ``leaseDuration`` is expired. The member saw that version no
///   earlier than it was written, so no earlier than the holder began the write.
/// - Fencing: the holder delivers a shard only until the start of its last successful write of the lease plus
///   ``leaseDuration`` minus ``safetyMargin``, by its own clock: strictly before any other member can see the lease
///   expired, whatever happened to the holder (paused, partitioned, slow).
/// - Fair share: a member takes at most `ceil(shards / live members)` leases, expired ones first, then free ones
///   by shard number; a member over its share releases the excess; when no lease is free and a live member holds
///   fewer than `shards / live members` (rounded down), the member holding the most (ties: the greatest ID) releases
///   one per tick. A member is live while its heartbeat moves (seen unchanged for less than ``leaseDuration``).
package struct LeaseMachine: Sendable {
    package let member: String
    package let shards: Int
    package let leaseDuration: Duration
    package let safetyMargin: Duration

    /// The leases held, each with the instant its delivery must stop.
    package private(set) var held: [Int: (generation: Int64, validUntil: Duration)] = [:]
    private var seenLeases: [Int: (version: LeaseVersion, since: Duration)] = [:]
    private var seenMembers: [String: (heartbeat: Int64, since: Duration)] = [:]
    /// The highest generation seen for each shard, in any table or outcome: no acquisition goes back below it.
    package private(set) var highestGenerations: [Int: Int64] = [:]

    package init(member: String, shards: Int, leaseDuration: Duration, safetyMargin: Duration? = nil) {
        self.member = member
        self.shards = shards
        self.leaseDuration = leaseDuration
        self.safetyMargin = safetyMargin ?? leaseDuration / 10
    }

    /// Notes what `table` holds, read at `now`: a lease or member whose version changed is seen since `now`.
    package mutating func observe(_ table: LeaseTable, at now: Duration) {
        var leases: [Int: (version: LeaseVersion, since: Duration)] = [:]
        for lease in table.shards {
            highestGenerations[lease.shard] = max(highestGenerations[lease.shard] ?? 0, lease.generation)
            let old = seenLeases[lease.shard]
            leases[lease.shard] = old?.version == lease.version ? old : (lease.version, now)
        }
        seenLeases = leases
        var members: [String: (heartbeat: Int64, since: Duration)] = [:]
        for record in table.members {
            let old = seenMembers[record.id]
            members[record.id] = old?.heartbeat == record.heartbeat ? old : (record.heartbeat, now)
        }
        seenMembers = members
    }

    /// Whether `lease` is expired at `now`: held by another member, at a version seen unchanged for a lease length.
    package func isExpired(_ lease: ShardLease, at now: Duration) -> Bool {
        guard !lease.owner.isEmpty, let seen = seenLeases[lease.shard], seen.version == lease.version else {
            return false
        }
        return now - seen.since >= leaseDuration
    }

    /// The live members at `now` (this one always), sorted.
    package func liveMembers(at now: Duration) -> [String] {
        var live = Set(seenMembers.filter { now - $0.value.since < leaseDuration }.keys)
        live.insert(member)
        return live.sorted()
    }

    /// Members seen dead for `age` or more: their records can be deleted.
    package func deadMembers(at now: Duration, for age: Duration) -> [String] {
        seenMembers.filter { $0.key != member && now - $0.value.since >= leaseDuration + age }.keys.sorted()
    }

    /// What to write at `now`, from `table` (observed first, with ``observe(_:at:)``).
    package func plan(_ table: LeaseTable, at now: Duration) -> LeasePlan {
        var plan = LeasePlan()
        plan.generationFloors = highestGenerations
        let leases = Dictionary(table.shards.map { ($0.shard, $0) }, uniquingKeysWith: { first, _ in first })
        for (shard, held) in self.held.sorted(by: { $0.key < $1.key }) {
            let lease = HeldLease(shard: shard, generation: held.generation)
            if let stored = leases[shard], stored.owner == member, stored.generation == held.generation {
                plan.renew.append(lease)
            } else {
                plan.lost.append(lease)
            }
        }
        let live = liveMembers(at: now)
        let maxShare = (shards + live.count - 1) / live.count
        let minShare = shards / live.count
        if plan.renew.count > maxShare {
            plan.release = Array(plan.renew.suffix(plan.renew.count - maxShare))
            plan.renew.removeLast(plan.renew.count - maxShare)
            return plan
        }
        let available = table.shards.filter { lease in
            held[lease.shard] == nil && (lease.owner.isEmpty || isExpired(lease, at: now))
        }
        .sorted { ($0.owner.isEmpty ? 1 : 0, $0.shard) < ($1.owner.isEmpty ? 1 : 0, $1.shard) }
        let wanted = max(0, maxShare - plan.renew.count)
        plan.acquire = available.prefix(wanted).map { ($0.shard, $0.version) }
        if available.isEmpty, plan.renew.count > minShare, isMostLoaded(table, live: live, minShare: minShare) {
            if let last = plan.renew.popLast() { plan.release.append(last) }
        }
        return plan
    }

    /// Whether some live member holds fewer than `minShare` leases and this member holds the most (ties: the
    /// greatest ID).
    private func isMostLoaded(_ table: LeaseTable, live: [String], minShare: Int) -> Bool {
        var counts = Dictionary(uniqueKeysWithValues: live.map { ($0, 0) })
        for lease in table.shards where counts[lease.owner] != nil { counts[lease.owner, default: 0] += 1 }
        guard counts.values.contains(where: { $0 < minShare }) else { return false }
        let most = counts.max { ($0.value, $0.key) < ($1.value, $1.key) }
        return most?.key == member
    }

    /// Takes in what the store did with a plan whose writes began at `startedAt`.
    package mutating func apply(_ outcome: LeaseOutcome, startedAt: Duration) {
        let validUntil = startedAt + leaseDuration - safetyMargin
        for lease in outcome.renewed + outcome.acquired {
            held[lease.shard] = (lease.generation, validUntil)
            highestGenerations[lease.shard] = max(highestGenerations[lease.shard] ?? 0, lease.generation)
        }
        for lease in outcome.released + outcome.lost { held[lease.shard] = nil }
    }

    /// Drops every lease the plan found lost (before anything is written).
    package mutating func forget(_ lost: [HeldLease]) {
        for lease in lost where held[lease.shard]?.generation == lease.generation { held[lease.shard] = nil }
    }

    /// Whether this member may deliver `shard` at `now`, and at which generation.
    package func deliverable(_ shard: Int, at now: Duration) -> Int64? {
        guard let held = held[shard], now < held.validUntil else { return nil }
        return held.generation
    }

    /// Every lease held, for a release at shutdown.
    package var heldLeases: [HeldLease] {
        held.map { HeldLease(shard: $0.key, generation: $0.value.generation) }.sorted { $0.shard < $1.shard }
    }
}
