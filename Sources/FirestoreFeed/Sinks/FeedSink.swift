import FirestoreREST

/// A store a change feed is mirrored into, exactly once: the sink's own transaction holds the rows, the feed's resume
/// point and the fencing token, so the sink's store is the feed's checkpoint.
///
/// The rule a sink lives by, for each snapshot (``FeedSinkBatch``):
///
/// 1. Begin one transaction of the sink's store.
/// 2. Refuse the batch, changing nothing, when the generation the store holds for its shard is above the batch's
///    (the fencing token: a member of a feed group that lost the shard's lease, paused or partitioned, never writes
///    after the member that took it): throw ``FeedSinkStaleGeneration``.
/// 3. Apply each change only when it is newer than what the store holds for the name (the version guard): a put when
///    its document's `updateTime` is after the row's and the name's tombstone, if any, was left before the batch's read
///    time; a removal unless a batch after its read time wrote the row or it holds a version at or after it. A removal
///    leaves a tombstone with the batch's read time, so a late change (from a snapshot before it) never brings the
///    document back, while a snapshot after it that holds the document again (a `limit` window it re-entered unchanged)
///    writes it again.
/// 4. Store the batch's resume point (resume token, read time, generation, query) for its shard.
/// 5. Commit. The feed moves on only after `apply` returns.
///
/// When it starts, a feed reads ``resumePoint(shard:)`` and resumes from it: the Listen target is sent the stored
/// resume token (within 30 minutes of its read time), and its view starts from ``documents()``, so the first
/// snapshot lists only what changed while nothing ran. A change delivered again after a crash is a no-op (the version
/// guard), so what the store holds is as if each change were applied once.
///
/// `QueryRepresentable.mirror(into:pageSize:policy:onEvent:)` loads a query's result into a sink (a backfill in
/// pages at one read time, each page's cursor in ``FeedSinkResumePoint/loadCursor``), then runs its Listen feed into
/// it; a feed group's member hands each ``ShardSnapshot`` to ``apply(_:)-(ShardSnapshot)``. ``SQLiteMirror`` is the
/// embedded sink. A sink stores `loadCursor` with the resume point; the rest of the backfill is the feed's.
public protocol FeedSink: Sendable {
    /// Where the feed of `shard` resumes (0 for a plain feed, which has one), or `nil` when the sink holds nothing
    /// for it yet (the feed starts from scratch, every document added).
    func resumePoint(shard: Int) async throws -> FeedSinkResumePoint?

    /// Every document the sink holds (not its tombstones), with fields and times: the view a plain feed's Listen
    /// target resumes from, so a document removed while the feed was down is seen to leave.
    func documents() async throws -> [Document]

    /// Applies `batch` in one transaction of the sink's store: its changes (each under the version guard) and its
    /// resume point, or nothing.
    /// - Throws: ``FeedSinkStaleGeneration`` when the store holds a higher generation for the batch's shard (nothing
    ///   is changed); the store's own error (nothing is changed).
    func apply(_ batch: FeedSinkBatch) async throws
}

extension FeedSink {
    /// Applies a feed group's shard snapshot (its shard and generation, the fencing token) and acknowledges it once
    /// the sink committed, so the group moves on only after the commit.
    /// - Throws: ``FeedSinkStaleGeneration`` when the sink holds a higher generation for the shard: the snapshot is
    ///   not acknowledged, and the caller must stop delivering the shard (its lease passed to another member).
    ///
    /// The first snapshot of a shard that a member started without a view of it (no checkpoint, or one too old to
    /// read at) is the shard's whole result: the batch also removes each document the sink holds in the shard's name
    /// range that the snapshot lacks (it left the result while no member followed the shard), reading the sink's
    /// documents once for it (``documents()``); the store's version guard keeps a row written from a later snapshot.
    public func apply(_ shardSnapshot: ShardSnapshot) async throws {
        try await apply(try await batch(of: shardSnapshot))
        await shardSnapshot.acknowledge()
    }

    /// The batch of `shardSnapshot`: its changes, shard and generation; for the whole first snapshot of a shard
    /// started without a view (``ShardSnapshot/wholeShard``), also the removal of each document the sink holds in the
    /// shard's range that the snapshot lacks.
    /// - Complexity: O(n) for the sink's n documents when the snapshot is a shard's whole result; else O(changes).
    func batch(of shardSnapshot: ShardSnapshot) async throws -> FeedSinkBatch {
        var batch = FeedSinkBatch(
            shardSnapshot.snapshot, shard: shardSnapshot.shard, generation: shardSnapshot.generation)
        guard let ranges = shardSnapshot.wholeShard else { return batch }
        let present = Set(shardSnapshot.snapshot.documents.compactMap { $0.document?.name })
        for held in try await documents()
        where ranges.shard(of: held.name) == shardSnapshot.shard && !present.contains(held.name) {
            batch.changes.append(.remove(name: held.name))
        }
        return batch
    }
}
