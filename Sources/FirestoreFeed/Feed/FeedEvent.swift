import FirestoreREST

/// Something a change feed wants its listeners to know besides snapshots.
public enum FeedEvent: Sendable, Hashable {
    /// A poll failed with a transient error; the last snapshot stays and the next poll comes after `retryIn`.
    case pollFailed(FirestoreError, retryIn: Duration)
    /// A poll succeeded after failures; the error is cleared. (A Listen stream's recovery is ``listenRecovered(staleSince:)``.)
    case recovered
    /// Keys mode was refused by the server; the feed now polls whole documents. `reason` is the server's error.
    case fellBackToFullDocuments(reason: String)
    /// The Listen stream ended (the server ended the call, refused it, reset it, the connection closed or stopped
    /// answering) with a transient error; the last snapshot stays, and the stream is reopened after `retryIn` (the
    /// delay actually waited, jitter included), resuming every target from its last snapshot. The feed has been
    /// stale since `staleSince` (wall-clock time of the first failure since its last consistent snapshot).
    case listenFailed(FirestoreError, retryIn: Duration, staleSince: Timestamp)
    /// The reopened Listen stream reached a consistent snapshot point: the feed is current again, after being stale
    /// since `staleSince`.
    case listenRecovered(staleSince: Timestamp)
    /// A quiet Listen stream was probed and answered after `answeredIn`; the probe costs `billedReads`
    /// (`BilledReads.listenProbe`). A probe that is not answered ends the stream as dead (`listenFailed`).
    case listenProbed(answeredIn: Duration, billedReads: Int)
    /// A Listen target was listened to again from scratch: its view disagreed with the server's count (an existence
    /// filter), or it buffered more changes than the policy allows without a snapshot. The last snapshot stays; the
    /// next one lists what differs from it. `reason` says which.
    case listenTargetReset(reason: String)
    /// The Listen stream cannot be used with this client or server (a transport that is not `CurlTransport`, a
    /// server or proxy that does not speak gRPC over HTTP/2, a database with realtime updates switched off); the feed
    /// polls in keys mode instead. `reason` says why. Unless the transport itself cannot carry a stream, the feed
    /// tries Listen again after ``PollingPolicy/listenRetryAfterFallback`` (``listenRestored`` when it works).
    case fellBackToPolling(reason: String)
    /// A feed that fell back to polling tried the Listen stream again (``PollingPolicy/listenRetryAfterFallback``
    /// after the fallback) and listens from now on; the snapshot that follows lists what changed since the last one it
    /// received while polling.
    case listenRestored
    /// This listener fell behind: `count` snapshots (at least 2) were published while it was still busy with an
    /// earlier one, and it receives them as one: the newest snapshot, with the changes from the last snapshot it
    /// received to the newest (computed with the same `DocumentChange` rules, so none is lost and none is
    /// spurious: a document added and removed in between is no change, one modified twice is one modification).
    /// When those changes cancel out, no snapshot follows. A listener that keeps up gets every snapshot; one that
    /// does not holds at most one snapshot it has not taken yet, so its memory stays bounded (`SlowConsumerTests`,
    /// `SlowConsumerLiveTests`).
    case snapshotsCoalesced(count: Int)
    /// The changes the query's ordering gave did not rebuild the result in the server's order (a value type the
    /// client orders differently from the server); the snapshot's changes were computed from the server's order
    /// instead, so they still rebuild its list. `reason` names the documents that disagreed
    /// (`OrderingSafetyNetTests`).
    case orderingMismatch(reason: String)
    /// A poll finished, whether or not its result changed (an unchanged poll publishes no snapshot): what it cost,
    /// billed reads included (`PollStatistics.billedReads`). Polling feeds only; a Listen snapshot carries its
    /// own statistics.
    case polled(PollStatistics)
    /// Polling cannot keep its interval: the last polls took longer than the `interval` the policy asked to wait
    /// between them (say a crowd of other polls on the same client holds the connections, or the result is too
    /// big), so one poll starts every `actual` (the mean time from one poll's start to the next) instead of about
    /// every `interval`. Sent after 3 late polls in a row, then at most every 30 s while it lasts
    /// (`WriteStarvationLiveTests`, `PollPacingTests`).
    case intervalNotKept(interval: Duration, actual: Duration)
    /// A feed with a durable checkpoint (`snapshots(..., checkpoint:key:)`) resumed from the checkpoint of `key`,
    /// whose snapshot was consistent at `readTime`: the snapshot that follows lists only the changes since then
    /// (added, modified, removed against the stored documents), and is delivered even when there are none
    /// (`FeedCheckpointTests`, `CheckpointLiveTests`).
    case resumedFromCheckpoint(key: String, readTime: Timestamp?)
    /// A feed could not resume from its checkpoint of `key` and starts over: its next snapshot lists every document
    /// as added (as a feed without a checkpoint does). `reason` says why, e.g. a feed group shard's checkpoint older
    /// than the server can read at (`FeedGroupMemberStartTests`).
    case checkpointNotResumed(key: String, reason: String)
    /// A feed group member took the lease of `shard`, free until now, at fencing `generation`; it delivers the shard
    /// from the shard's checkpoint on.
    case leaseAcquired(shard: Int, generation: Int64)
    /// A feed group member took the lease of `shard` from member `from`, whose lease expired (its heartbeat was
    /// seen unchanged for a lease length), at fencing `generation`.
    case leaseStolen(shard: Int, generation: Int64, from: String)
    /// A feed group member renewed the lease of `shard` after its own fence fell (`late` after it): it had stopped
    /// delivering the shard, and starts again from the shard's checkpoint.
    case leaseRenewedLate(shard: Int, generation: Int64, late: Duration)
    /// A feed group member stopped delivering `shard`: another member holds its lease now, or the member could not
    /// renew it in time (`reason` says which). Snapshots of the shard not acknowledged yet are delivered again by
    /// the next owner.
    case leaseLost(shard: Int, generation: Int64, reason: String)
    /// A feed group member gave up the lease of `shard` (over its fair share, or shutting down) after writing the
    /// shard's last acknowledged checkpoint.
    case leaseReleased(shard: Int, generation: Int64)
    /// A feed group member could not read or write the group's leases; it tries again after `retryIn`, and stops
    /// delivering each shard when the shard's fence falls.
    case leaseRenewalFailed(FirestoreError, retryIn: Duration)
    /// A mirror's backfill (`QueryRepresentable.mirror(into:pageSize:policy:onEvent:)`) applied a page read at
    /// `readTime`: `loaded` documents so far (this page's included), `complete` for the last page (the Listen tail
    /// starts next); `statistics` is the page's runQuery (1 request, its documents, its billed reads:
    /// FirestoreREST's `BilledReads.runQuery(documentsReturned:)`).
    case backfillPage(loaded: Int, readTime: Timestamp, complete: Bool, statistics: PollStatistics)
    /// A mirror's backfill starts over at a new read time: the server no longer reads at the old one (`reason`, its
    /// error: a load that outlived the read-time window, 1 hour without point-in-time recovery). The pages already
    /// applied stay; the new pass overwrites them by the version guard and removes what left meanwhile.
    case backfillRestarted(reason: String)
    /// A publish of a snapshot's change messages to Pub/Sub (FirestorePubSub's `publish(to:with:…)`) failed with a
    /// retryable error and is sent again after `retryIn` (the delay drawn, jitter included), within the publisher's
    /// retry budget (`PubSubRetrySettings.totalTimeout`, 600 s by default). The snapshot is not acknowledged (no
    /// checkpoint written) until every one of its messages is accepted; the feed waits meanwhile.
    case publishFailed(FirestoreError, retryIn: Duration)
}
