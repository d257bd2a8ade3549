import FirestoreREST

/// One member of a feed group: a change feed of one query shared by many processes, each shard of it delivered
/// by one member at a time, none lost when a member dies.
///
/// ```swift
/// let group = FeedGroup(db.collection("orders"), name: "mailer", options: FeedGroupOptions(shards: 8))
/// for try await shard in group.snapshots {
///     try await send(shard.snapshot.documentChanges)   // asking for the next one acknowledges this one
/// }
/// ```
///
/// - Shards: the query is split into `shards` ranges of document names, fixed when the group is created (by its
///   first member, by a create only one member can make, stored in `{root}/{name}` with the split points: from `PartitionQuery` where the
///   server offers it, else from a keys-only scan, one billed read per document, once). Each shard is one Listen
///   target: the query's filters on its name range, ordered by `__name__` (the query's own orders are replaced;
///   a limit, offset or cursors are refused).
/// - Leases in Firestore (`{root}/{name}/shards/{n}`): owner, a fencing generation that grows at every handover,
///   a heartbeat, and the shard's checkpoint (read time and resume token). Every ``FeedGroupOptions/renewInterval``
///   a member reads the leases and members (shards + members billed reads), then in one commit renews what it
///   holds, writes their acknowledged checkpoints and moves its member heartbeat (held shards + 1 billed writes,
///   as many reads), and takes free or expired leases up to its fair share, `ceil(shards / live members)`;
///   a member over its share releases the excess. Per member-hour at the defaults (5 s): 720 × (held + 1)
///   writes and 720 × (shards + members + held + 1) reads.
/// - Expiry and fencing: a lease seen unchanged for ``FeedGroupOptions/leaseDuration`` (by the observer's own
///   monotonic clock) is expired and may be taken; its holder stops delivering the shard before that can happen,
///   at the start of its last successful renewal plus 9/10 of the lease length by its own clock, whether it is
///   paused, partitioned or slow. A checkpoint is written only by a commit whose precondition finds the lease
///   unchanged since the member read it as the owner at its generation, so a stale owner never moves it. No
///   transaction is used: a member killed inside one would keep its leases locked for the transaction's 60 s
///   idle time.
/// - Delivery: at least once per shard, in order within a shard. Each shard has at most one snapshot handed out
///   and not acknowledged; its next one waits (later changes fold into it). Acknowledged snapshots move the
///   checkpoint, written with the next renewal or the release; the next owner resumes from it: the shard's
///   documents read at the checkpoint's read time are its view, and with the resume token (within 30 minutes)
///   Firestore sends only what changed. Duplicates happen only across a handover: what was delivered after the
///   last written checkpoint is delivered again. Every change's document carries its `updateTime`, for
///   last-writer-wins sinks.
/// - Failover: a dead member's shards are delivered again by another within the lease length plus one renewal
///   interval, plus the time to open their targets. A member that leaves (``leave()``, or its stream released)
///   releases its leases at once.
/// - Events: ``FeedEvent/leaseAcquired(shard:generation:)``, ``FeedEvent/leaseStolen(shard:generation:from:)``,
///   ``FeedEvent/leaseRenewedLate(shard:generation:late:)``, ``FeedEvent/leaseLost(shard:generation:reason:)``,
///   ``FeedEvent/leaseReleased(shard:generation:)``, ``FeedEvent/leaseRenewalFailed(_:retryIn:)``, and the
///   Listen feeds' events.
/// - Errors: the stream ends with `FirestoreError` `.invalidArgument` for bad options or query, `.failedPrecondition`
///   when the group exists with another query or shard count, `.dataLoss` for a lease document of another shape,
///   or a shard feed's permanent error; the member leaves first.
public final class FeedGroup: Sendable {
    let member: FeedGroupMember
    /// The group's event handler (lease and feed events, observed), for what a sink adds (a publish's retries).
    package var onEvent: (@Sendable (FeedEvent) -> Void)? { member.onEvent }
    /// The group's name.
    public let name: String
    /// This member's options.
    public let options: FeedGroupOptions

    /// A member of group `name` watching `query`; it joins when ``snapshots`` is first iterated.
    /// - Parameters:
    ///   - query: the group's query: every member must give the same one.
    ///   - name: the group's document ID under ``FeedGroupOptions/root``.
    ///   - options: member ID, shard count, lease timing.
    ///   - onEvent: lease and feed events.
    public init(
        _ query: some QueryRepresentable, name: String, options: FeedGroupOptions = FeedGroupOptions(),
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) {
        self.name = name
        self.options = options
        let events = FeedObservation(query.query, source: "group").events(onEvent)
        member = FeedGroupMember(base: query.query, name: name, options: options, onEvent: events)
    }

    /// The shards' snapshots this member delivers, from every shard it holds, interleaved. One consumer: asking for
    /// the next element acknowledges the previous one. Releasing the stream leaves the group.
    public var snapshots: AsyncThrowingStream<ShardSnapshot, any Error> {
        let member = self.member
        let lease = ReleaseAction { Task { await member.leave() } }
        return AsyncThrowingStream(unfolding: {
            _ = lease
            return try await member.next()
        })
    }

    /// Leaves the group gracefully: stops delivering, writes every shard's acknowledged checkpoint and releases
    /// every lease (other members take them at their next renewal), and ends ``snapshots``.
    public func leave() async { await member.leave() }

    /// The shards this member delivers now, sorted.
    public func heldShards() async -> [Int] { await member.deliveringShards() }

    /// Stops this member as a crash would: no more renewals, deliveries or writes, no release; other members take
    /// its leases once they expire. For failover tests and benchmarks.
    package func abandon() async { await member.abandon() }
}

extension FeedGroup {
    /// Joins group `name` as ``init(_:name:options:onEvent:)`` does and calls `listener` with each shard snapshot
    /// this member delivers, acknowledging it when the listener returns, or once with the error that ends the
    /// member, as the SDKs' `addSnapshotListener` does. Calls are made one at a time, in order.
    /// `ListenerRegistration.remove()` leaves the group gracefully (checkpoints written, leases released);
    /// `ListenerRegistration.lastError` shows a Listen failure until the stream recovers.
    @discardableResult
    public static func addSnapshotListener(
        _ query: some QueryRepresentable, name: String, options: FeedGroupOptions = FeedGroupOptions(),
        _ listener: @escaping @Sendable (ShardSnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        ListenerRegistration.start(listener) { onEvent in
            FeedGroup(query, name: name, options: options, onEvent: onEvent).snapshots
        }
    }
}

extension FeedGroupMember {
    /// The shards whose feeds run, sorted.
    func deliveringShards() -> [Int] { shardTasks.keys.sorted() }
}
