import FirestoreREST

extension FeedGroup {
    /// Mirrors the shards this member holds into `sink`, exactly once into the sink's store, until the calling task is
    /// cancelled (the batch in hand is committed, then the member leaves gracefully and the call returns normally).
    ///
    /// Each ``ShardSnapshot`` becomes one ``FeedSinkBatch`` of its shard at its generation (the fencing token), which
    /// the sink applies in one transaction with the shard's resume point; the snapshot is acknowledged only after the
    /// commit. The store enforces the fence: a member paused past its lease, whose shard another member took and wrote
    /// at a higher generation, has its batch refused (``FeedSinkStaleGeneration``, nothing applied) and stops
    /// delivering that shard (``FeedEvent/leaseLost(shard:generation:reason:)``), while its other shards go on. A
    /// shard taken over resumes from the group's checkpoint, which can be older than the sink's resume point (it is
    /// written at each renewal): what is delivered again is a no-op in the store (the version guard). A shard started
    /// without a checkpoint (its holder died before writing one, or the checkpoint is too old to read at) delivers
    /// its whole result, and that batch also removes what the sink holds of the shard and the result lacks.
    ///
    /// Every member of the group mirrors into the same store (one SQLite file on a shared volume, or one PostgreSQL
    /// table); a store mirrors one group: generations count from 1 in a new group, so a group created again needs an
    /// empty table.
    /// - Parameter sink: the store.
    /// - Throws: `FirestoreError` `.failedPrecondition` when this member holds a shard's lease at a generation the sink
    ///   refused (the sink holds another group's generations); the sink's error (after leaving: the batch is not
    ///   applied, and the next owner of its shard delivers it again); the member's error (``snapshots`` lists them).
    public func mirror(into sink: some FeedSink) async throws {
        let member = self.member
        // ``run(_:)``'s loop: each snapshot applied, then acknowledged; a refused one is no longer outstanding once
        // its shard stopped, so its acknowledgement changes nothing.
        try await run { shard in
            do {
                // The shard's whole first snapshot (a shard started without a checkpoint) also removes what the sink
                // holds of the shard and the snapshot lacks (``FeedSink/batch(of:)``).
                try await sink.apply(try await sink.batch(of: shard))
            } catch let refusal as FeedSinkStaleGeneration {
                await member.refusedBySink(refusal)
            }
        }
    }
}
