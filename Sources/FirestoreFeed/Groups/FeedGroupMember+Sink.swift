import FirestoreREST

extension FeedGroupMember {
    /// Stops delivering the shard of `refusal`, whose snapshot a sink refused for a stale generation: the sink holds
    /// a higher one, so another member took the lease (this one was paused or partitioned past it, and its next
    /// renewal finds the lease lost). When this member renews the lease at the refused generation all the same, the
    /// sink's generations are not this group's, and the member ends (``failForSink(_:)``).
    func refusedBySink(_ refusal: FeedSinkStaleGeneration) {
        sinkRefusals[refusal.shard] = refusal
        guard let running = shardTasks[refusal.shard], running.generation <= refusal.generation else { return }
        stopShard(refusal.shard)
        onEvent?(
            .leaseLost(
                shard: refusal.shard, generation: refusal.generation,
                reason: "the sink holds generation \(refusal.storedGeneration) for the shard: another member "
                    + "took its lease"))
    }

    /// Ends the member: the lease store says it holds the shard of `refusal` at a generation the sink refused, so
    /// the sink holds a generation this group never gave (a table mirrored by another group, or by this group before
    /// it was created again: generations count from 1 in a new group).
    func failForSink(_ refusal: FeedSinkStaleGeneration) {
        stopped = true
        for shard in Array(shardTasks.keys) { stopShard(shard) }
        fail(
            FirestoreError(
                code: .failedPrecondition,
                message: "feed group \(options.root)/\(name) holds shard \(refusal.shard) at generation "
                    + "\(refusal.generation), and \(refusal.sink) holds generation \(refusal.storedGeneration) for "
                    + "it: the sink is another group's (or this group's before it was created again); mirror into "
                    + "another table, or empty this one"))
    }
}
