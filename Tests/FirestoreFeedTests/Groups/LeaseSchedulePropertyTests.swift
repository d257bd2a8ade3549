import FirestoreFeed
import FirestoreREST
import Testing

/// Random schedules of members joining, dying, pausing and leaving, each member ticking every renewal interval
/// (its read and its transaction apart by a random latency) against one shared table. At every step: no shard is
/// deliverable by two running members, no checkpoint moves backwards, and every change up to a shard's checkpoint
/// was delivered by some member (none acknowledged is lost). At the end every shard is held.
@Suite(.timeLimit(.minutes(2))) struct LeaseSchedulePropertyTests {
    static let shards = 6
    static let lease = Duration.seconds(15)
    static let renew = Duration.seconds(5)
    static let step = Duration.milliseconds(250)

    /// A member of the simulation.
    struct Member {
        var machine: LeaseMachine
        var nextTick: Duration
        var running = true
        var dead = false
        var pausedUntil: Duration?
        /// Per shard, the next change this member will deliver.
        var position: [Int: Int64] = [:]
        /// Acknowledged positions not yet written.
        var acknowledged: [Int: ShardCheckpoint] = [:]
        /// A tick read at this time, whose transaction runs at `commitAt`.
        var pending: (readAt: Duration, commitAt: Duration, plan: LeasePlan)?
    }

    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func position(_ checkpoint: ShardCheckpoint?) -> Int64 { checkpoint?.readTime.seconds ?? 0 }

    @Test(arguments: 0..<40) func randomSchedulesKeepEveryShardFencedAndEveryChange(seed: UInt64) throws {
        var random = Random(state: seed)
        var table = LeaseTable(shards: (0..<Self.shards).map { ShardLease(shard: $0) }, members: [])
        var members: [Member] = []
        var delivered: [Int: Set<Int64>] = [:]
        var lastCheckpoint: [Int: Int64] = [:]
        var deaths = 0
        var pauses = 0
        func join(at now: Duration) {
            let id = "m\(members.count)"
            members.append(
                Member(
                    machine: LeaseMachine(member: id, shards: Self.shards, leaseDuration: Self.lease),
                    nextTick: now + .milliseconds(Int.random(in: 0..<5000, using: &random))))
        }
        for _ in 0..<3 { join(at: .zero) }
        var now = Duration.zero
        let end = Duration.seconds(600)
        while now < end {
            now += Self.step
            // Each shard gets one change per step (position = the step number), while the schedule runs.
            let head = Int64(now / Self.step)
            if now < end - .seconds(120) {
                switch Int.random(in: 0..<150, using: &random) {
                case 0: join(at: now)
                case 1:
                    if let index = members.indices.filter({ members[$0].running }).randomElement(using: &random),
                        members.count(where: { $0.running }) > 1
                    {
                        members[index].running = false
                        members[index].dead = true
                        deaths += 1
                    }
                case 2:
                    if let index = members.indices.filter({ members[$0].running }).randomElement(using: &random) {
                        members[index].running = false
                        members[index].pausedUntil = now + .seconds(Int.random(in: 10..<25, using: &random))
                        pauses += 1
                    }
                case 3:
                    // A graceful leave: stop delivering, write the last checkpoints and release every lease.
                    if let index = members.indices.filter({ members[$0].running }).randomElement(using: &random),
                        members.count(where: { $0.running }) > 1
                    {
                        var plan = LeasePlan()
                        plan.release = members[index].machine.heldLeases
                        let current = Dictionary(uniqueKeysWithValues: table.shards.map { ($0.shard, $0) })
                        let (writes, outcome) = LeaseWrites.resolve(
                            plan, current: current, member: members[index].machine.member,
                            checkpoints: members[index].acknowledged)
                        for lease in writes { table.shards[lease.shard] = lease }
                        members[index].machine.apply(outcome, startedAt: now)
                        members[index].running = false
                        members[index].dead = true
                    }
                default: break
                }
            }
            for index in members.indices {
                if let until = members[index].pausedUntil, now >= until {
                    members[index].pausedUntil = nil
                    members[index].running = true
                }
                guard members[index].running else { continue }
                var member = members[index]
                // Deliver and acknowledge every shard this member may deliver now.
                for shard in 0..<Self.shards {
                    guard let generation = member.machine.deliverable(shard, at: now) else { continue }
                    var next = member.position[shard] ?? 0
                    while next <= head {
                        delivered[shard, default: []].insert(next)
                        next += 1
                    }
                    member.position[shard] = next
                    let checkpoint = try ShardCheckpoint(
                        readTime: Timestamp(seconds: next, nanos: 0),
                        resumeToken: [UInt8(truncatingIfNeeded: generation)])
                    member.acknowledged[shard] = checkpoint
                }
                if let pending = member.pending, now >= pending.commitAt {
                    let current = Dictionary(uniqueKeysWithValues: table.shards.map { ($0.shard, $0) })
                    let (writes, outcome) = LeaseWrites.resolve(
                        pending.plan, current: current, member: member.machine.member,
                        checkpoints: member.acknowledged)
                    for lease in writes { table.shards[lease.shard] = lease }
                    if let at = table.members.firstIndex(where: { $0.id == member.machine.member }) {
                        table.members[at].heartbeat += 1
                    } else {
                        table.members.append(GroupMember(id: member.machine.member, heartbeat: 1))
                    }
                    member.machine.apply(outcome, startedAt: pending.readAt)
                    for lease in outcome.acquired {
                        member.position[lease.shard] = Self.position(table.shards[lease.shard].checkpoint)
                        member.acknowledged[lease.shard] = nil
                    }
                    for lease in outcome.renewed + outcome.released { member.acknowledged[lease.shard] = nil }
                    member.pending = nil
                } else if member.pending == nil, now >= member.nextTick {
                    member.machine.observe(table, at: now)
                    let plan = member.machine.plan(table, at: now)
                    member.machine.forget(plan.lost)
                    let latency = Duration.milliseconds(Int.random(in: 0..<2000, using: &random))
                    member.pending = (now, now + latency, plan)
                    member.nextTick = now + Self.renew
                }
                members[index] = member
            }
            // No shard deliverable by two running members.
            for shard in 0..<Self.shards {
                let deliverers = members.filter { $0.running && $0.machine.deliverable(shard, at: now) != nil }
                #expect(deliverers.count <= 1, "shard \(shard) at \(now): \(deliverers.map(\.machine.member))")
            }
            // Checkpoints never move back, and every change before one was delivered.
            for lease in table.shards {
                let position = Self.position(lease.checkpoint)
                #expect(position >= lastCheckpoint[lease.shard, default: 0], "shard \(lease.shard) at \(now)")
                lastCheckpoint[lease.shard] = position
            }
        }
        for shard in 0..<Self.shards {
            let checkpoint = lastCheckpoint[shard, default: 0]
            let seen = delivered[shard, default: []]
            #expect(checkpoint > 0, "shard \(shard) never checkpointed")
            #expect((0..<checkpoint).allSatisfy(seen.contains), "shard \(shard) lost a change before \(checkpoint)")
        }
        #expect(
            table.shards.allSatisfy { lease in members.contains { $0.running && $0.machine.member == lease.owner } })
        #expect(deaths + pauses > 0)
    }
}
