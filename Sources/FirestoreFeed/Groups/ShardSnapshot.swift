import FirestoreREST

/// One snapshot of one shard of a feed group, delivered to the member holding the shard's lease.
///
/// Its ``snapshot`` is the shard's `QuerySnapshot` (the documents of the shard's name range that match the query,
/// in `__name__` order, and the changes since the shard's previous snapshot). Every change's document has its
/// `updateTime`, so a sink can apply changes last-writer-wins across a handover.
public struct ShardSnapshot: Sendable {
    /// The shard, `0..<shards`.
    public let shard: Int
    /// The fencing generation of the lease this member delivered it under: grows at every handover of the shard.
    public let generation: Int64
    /// The shard's snapshot.
    public let snapshot: QuerySnapshot
    /// The read time of the shard's checkpoint this member resumed from, on the first snapshot after it took the
    /// lease; `nil` otherwise, and when the shard had no checkpoint (every document is then `.added`).
    public let resumedFrom: Timestamp?
    let acknowledgement: @Sendable () async -> Void

    /// The snapshot's read time.
    public var readTime: Timestamp? { snapshot.readTime }

    /// The shard's lag: the wall-clock time now minus ``readTime`` (how far behind the database this snapshot is),
    /// or `nil` without a read time. The reads Firestore bills for it are in `snapshot.statistics`.
    public var lag: Duration? { readTime.map { Timestamp.now().duration(since: $0) } }

    /// Acknowledges this snapshot: the shard's checkpoint moves to it (written with the member's next lease
    /// renewal, within ``FeedGroupOptions/renewInterval``, or when the lease is released), and the shard's next
    /// snapshot can be delivered. Asking the group's stream for its next element acknowledges the element before
    /// it. An acknowledgement after the lease was lost is ignored (the next owner delivers the snapshot again).
    public func acknowledge() async { await acknowledgement() }
}
