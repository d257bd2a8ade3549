import FirestoreREST

/// One snapshot of one shard of a feed group, delivered to the member holding the shard's lease.
///
/// Its ``snapshot`` is the shard's `QuerySnapshot` (the documents of the shard's name range that match the query,
/// in `__name__` order, and the changes since the shard's previous snapshot). Every change's document has its
/// `updateTime`, so a sink can apply changes last-writer-wins across a handover.
///
/// An effect outside the process (a table, a broker, a web hook) is safe only with what travels with it: the
/// ``generation`` as a fencing token, and each change's document name and `updateTime`. Timing cannot protect it:
/// a member paused (a GC pause, SIGSTOP, a VM migration) between any check and its effect acts after its lease has
/// passed to another member. A sink that records the highest generation it applied per shard and refuses a lower
/// one, and applies a change only when its `updateTime` is newer than what it holds for the document, is safe
/// against any pause (Kleppmann, "How to do distributed locking", 2016; Chubby's sequencers). ``fenceStands()``
/// and ``fenceFalls()`` let an effect skip or stop work that can no longer count, which saves work but replaces
/// neither check.
public struct ShardSnapshot: Sendable {
    /// The shard, `0..<shards`.
    public let shard: Int
    /// The fencing token: the generation of the lease this member delivered the snapshot under. It grows at every
    /// handover of the shard, so a sink that refuses a generation lower than the highest it applied for the shard
    /// never lets a member that lost the lease (paused, partitioned) write after the member that took it.
    public let generation: Int64
    /// The shard's snapshot.
    public let snapshot: QuerySnapshot
    /// The read time of the shard's checkpoint this member resumed from, on the first snapshot after it took the
    /// lease; `nil` otherwise, and when the shard had no checkpoint (every document is then `.added`).
    public let resumedFrom: Timestamp?
    let acknowledgement: @Sendable () async -> Void
    /// The time left before the fence of this snapshot's lease falls, or `nil` once it fell.
    let fence: @Sendable () async -> Duration?
    /// The group's shard ranges, on the first snapshot of a shard feed started without a view of the shard (no
    /// checkpoint, or one too old to read at); `nil` otherwise. That snapshot is the shard's whole result at its read
    /// time, every document `.added`: a document a sink holds in the shard's range and the snapshot lacks left the
    /// result while no member followed the shard, and ``FeedSink/apply(_:)-(ShardSnapshot)`` removes it.
    var wholeShard: ShardRanges? = nil
    /// The shard's lease document (`{root}/{group}/shards/{n}`), beside which a sink keeps what the shard's next owner
    /// must read (``FeedGroup``'s Pub/Sub publish keeps the names it may have published there); `nil` for a group
    /// whose leases are not in Firestore.
    package var leaseDocument: DocumentReference? = nil
    /// The read time of the shard's checkpoint as last written to its lease by this member (or as it resumed from),
    /// or `nil` when none is: what the shard's next owner would resume from now.
    package var storedCheckpoint: @Sendable () async -> Timestamp? = { nil }

    /// The snapshot's read time.
    public var readTime: Timestamp? { snapshot.readTime }

    /// Whether this is the first snapshot of the shard's feed as this member started it (on taking the lease, or on
    /// a renewal after its fence fell): resumed from the stored checkpoint, or the whole shard.
    package var startsFeed: Bool { resumedFrom != nil || wholeShard != nil }

    /// The shard's lag: the wall-clock time now minus ``readTime`` (how far behind the database this snapshot is),
    /// or `nil` without a read time. The reads Firestore bills for it are in `snapshot.statistics`.
    public var lag: Duration? { readTime.map { Timestamp.now().duration(since: $0) } }

    /// Acknowledges this snapshot: the shard's checkpoint moves to it (written with the member's next lease
    /// renewal, within ``FeedGroupOptions/renewInterval``, or when the lease is released), and the shard's next
    /// snapshot can be delivered. Asking the group's stream for its next element acknowledges the element before
    /// it. An acknowledgement after the lease was lost is ignored (the next owner delivers the snapshot again).
    public func acknowledge() async { await acknowledgement() }

    /// Whether this member still holds the shard at ``generation`` with its fence standing: it renewed the lease in
    /// time, and has not lost or released it. Check it right before an effect (`watch --exec` does before each run
    /// and after each failure); the effect must still carry ``generation``, since the process can pause between the
    /// check and the effect.
    public func fenceStands() async -> Bool { await fence() != nil }

    /// Returns once the fence of this snapshot's lease has fallen (the lease was not renewed in time, was lost or
    /// released, or the member left), or the task was cancelled: for ending an effect still running then (`watch
    /// --exec` ends its command). Checks at least every 100 ms and at the fence's time.
    public func fenceFalls() async {
        while let left = await fence() {
            do {
                try await Task.sleep(for: max(.milliseconds(1), min(left, .milliseconds(100))))
            } catch {
                return
            }
        }
    }
}
