import FirestoreREST

/// The lease writes of one plan, decided against the leases as the store holds them (read just before
/// the commit, whose preconditions require them unchanged): a renewal or release only where the member is still the owner at its generation, an acquisition
/// only where the lease is still at the version the member saw. What every ``LeaseStore`` commits.
package enum LeaseWrites {
    /// The leases to write and what became of each part of `plan`.
    /// - Parameters:
    ///   - current: the leases the plan names, as stored now (a missing one counts as free at version zero).
    ///   - checkpoints: acknowledged checkpoints to write with a renewal or release, by shard.
    /// - Complexity: O(leases in the plan).
    ///   - incarnation: the group's incarnation, written into every lease.
    package static func resolve(
        _ plan: LeasePlan, current: [Int: ShardLease], member: String, checkpoints: [Int: ShardCheckpoint],
        incarnation: Timestamp? = nil
    ) -> (writes: [ShardLease], outcome: LeaseOutcome) {
        var writes: [ShardLease] = []
        var outcome = LeaseOutcome()
        func stored(_ shard: Int) -> ShardLease { current[shard] ?? ShardLease(shard: shard) }
        for held in plan.renew + plan.release {
            var lease = stored(held.shard)
            guard lease.owner == member, lease.generation == held.generation else {
                outcome.lost.append(held)
                continue
            }
            lease.heartbeat += 1
            if let checkpoint = checkpoints[held.shard] { lease.checkpoint = checkpoint }
            if let incarnation { lease.incarnation = incarnation }
            if plan.release.contains(held) {
                lease.owner = ""
                outcome.released.append(held)
            } else {
                outcome.renewed.append(held)
            }
            writes.append(lease)
        }
        for (shard, expected) in plan.acquire {
            var lease = stored(shard)
            guard lease.version == expected else {
                outcome.missed.append(shard)
                continue
            }
            lease.owner = member
            lease.generation = max(lease.generation, plan.generationFloors[shard] ?? 0) + 1
            lease.heartbeat += 1
            if let incarnation {
                // A checkpoint of another incarnation is of other split points: the shard starts over.
                if lease.incarnation != incarnation, lease.incarnation != nil { lease.checkpoint = nil }
                lease.incarnation = incarnation
            }
            writes.append(lease)
            outcome.acquired.append(HeldLease(shard: shard, generation: lease.generation))
        }
        return (writes, outcome)
    }
}
