import FirestoreREST
import Synchronization

extension QueryRepresentable {
    /// A change feed of this query: a `QuerySnapshot` whenever the result changed (the first one always, with
    /// every document as `.added`). Its `documentChanges` follow the SDK rules (`DocumentChangeComputation`,
    /// proven by Google's conformance `listen-*.json` tests) whatever the source.
    ///
    /// - Source: `.listen` (the default) uses Firestore's Listen stream: changes arrive milliseconds after their
    ///   commit and Firestore bills only the documents delivered; one stream per client carries one target per
    ///   query. When the stream cannot be opened (a transport that is not `CurlTransport`, e.g. a replayed
    ///   cassette; a proxy or server without HTTP/2) the feed polls in keys mode and `onEvent` hears
    ///   `FeedEvent.fellBackToPolling(reason:)`. `.poll(mode)` polls every `interval` in a `PollMode`: `.keys`,
    ///   `.full`, or `.delta(field: "updatedAt")` (only the documents whose tracking field moved, plus a
    ///   `count()`).
    /// - Cost: every snapshot's `statistics` carries the reads Firestore bills for it (`PollStatistics.billedReads`:
    ///   listen, the documents delivered; keys and full, every document returned at every poll; delta, 1 +
    ///   ceil(documents / 1,000) for an unchanged poll); `onEvent` hears every poll's as `FeedEvent.polled(_:)`.
    /// - Consistency: every snapshot is the result at one `readTime` (listen: a consistent snapshot point of the
    ///   stream; polling: one poll, keys mode fetching the changed documents at that same time). Nothing older than
    ///   the last applied state is applied.
    /// - A change: a document is modified only when its `updateTime` moved; one that stops matching is removed,
    ///   one that starts matching is added.
    /// - Errors: a transient error keeps the last snapshot and is retried with back-off (`PollingPolicy`);
    ///   `onEvent` hears `FeedEvent.pollFailed(_:retryIn:)` or `FeedEvent.listenFailed(_:retryIn:staleSince:)`, then
    ///   `FeedEvent.recovered` (`.listenRecovered(staleSince:)`); a resumed Listen stream sends only what changed
    ///   meanwhile; a Listen stream that goes quiet is probed and one found dead is reopened
    ///   (<doc:ListenStream>). An invalid query (before anything is sent) or a permanent server error ends the stream
    ///   with that `FirestoreError`.
    /// - A slow consumer costs bounded memory: a listener that has not taken its last snapshot when the next is
    ///   published holds only the newest, and receives it with the changes from the last snapshot it took
    ///   (`onEvent` hears `FeedEvent.snapshotsCoalesced(count:)` first); a listener that keeps up gets every
    ///   snapshot.
    /// - On demand: polls are made only while a listener waits for a snapshot (the first at once), so a consumer
    ///   slower than `interval` is polled at its own pace. A Listen target whose listeners all leave a snapshot
    ///   untaken without asking for 30 to 60 s is removed from the stream until one asks again; it then resumes
    ///   from its resume token (billed: only what changed meanwhile) and the listener gets the changes from its
    ///   last snapshot. So a `break` out of `for try await` in the top-level code of a `main.swift`, whose iterator
    ///   Swift never releases, costs no poll after the loop, and its Listen target ends a minute after the next
    ///   change at the latest (`FeedLeaveLiveTests`, `FeedDemandTests`).
    /// - Order check: each snapshot's changes are replayed on the previous list; when they do not rebuild the
    ///   server's order (a value the client orders differently), the changes are computed from the server's order
    ///   and `onEvent` hears `FeedEvent.orderingMismatch(reason:)`.
    /// - Sharing: listeners on the same query share one Listen target, or, polling, one poller and one request per
    ///   interval (the shared `PollerPool`). Cancelling the consuming task, dropping the stream or breaking out of a
    ///   loop over it leaves; the last to leave removes the target (closing the stream with its last target) or
    ///   stops polling.
    ///
    /// - Parameters:
    ///   - source: ``FeedSource/listen`` (default) or ``FeedSource/poll(_:)`` in a `PollMode`.
    ///   - interval: time between polls (at least 10 ms), when polling or after a fallback; ignored when `policy`
    ///     is given.
    ///   - policy: the full polling policy (idle back-off, error back-off, jitter); its error back-off also paces
    ///     reconnection of the Listen stream.
    ///   - onEvent: called with feed events (failures, recovery, fallbacks).
    public func snapshots(
        source: FeedSource = .listen, interval: Duration = .seconds(1), policy: PollingPolicy? = nil,
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) -> AsyncThrowingStream<QuerySnapshot, any Error> {
        snapshotFeed(source: source, interval: interval, policy: policy, onEvent: onEvent).stream
    }

    /// ``snapshots(source:interval:policy:onEvent:)``'s stream and the buffer behind it, which a relay ends
    /// at once (``CoalescingBuffer/terminate()``) when its own consumer leaves.
    func snapshotFeed(
        source: FeedSource, interval: Duration, policy: PollingPolicy?, onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> (stream: AsyncThrowingStream<QuerySnapshot, any Error>, buffer: CoalescingBuffer<QuerySnapshot>) {
        let policy = policy ?? PollingPolicy(interval: interval)
        let query = self.query
        let observation = FeedObservation(query, source: source.name)
        let onEvent = observation.events(onEvent)
        let (stream, buffer) = SnapshotCoalescing.makeQueryStream(query, onEvent: onEvent, observation: observation)
        switch source {
        case .poll(let mode):
            PollerPool.shared.feed(buffer, of: query, mode: mode, policy: policy, onEvent: onEvent)
        case .listen:
            WatchStreamPool.shared.feed(buffer, of: query, policy: policy, onEvent: onEvent)
        }
        return (stream, buffer)
    }

    /// Calls `listener` with each snapshot of this query's change feed from `source` (see
    /// ``snapshots(source:interval:policy:onEvent:)``), or once with the error that ended it, as the SDKs'
    /// `addSnapshotListener` does. Call `ListenerRegistration.remove()` to stop; the registration's
    /// `ListenerRegistration.lastError` shows a transient error until the next good poll.
    /// - Parameters:
    ///   - source: ``FeedSource/listen`` (default) or ``FeedSource/poll(_:)`` in a `PollMode`.
    ///   - interval: time between polls.
    ///   - listener: receives `(snapshot, nil)` for each snapshot and `(nil, error)` once when the feed ends
    ///     with an error. Calls are made one at a time, in order.
    @discardableResult
    public func addSnapshotListener(
        source: FeedSource = .listen, interval: Duration = .seconds(1),
        _ listener: @escaping @Sendable (QuerySnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        ListenerRegistration.start(listener) { onEvent in
            snapshots(source: source, interval: interval, onEvent: onEvent)
        }
    }
}

/// A handle on a snapshot listener; ``remove()`` stops it.
public final class ListenerRegistration: Sendable {
    let task = Mutex<Task<Void, Never>?>(nil)
    private let error = Mutex<FirestoreError?>(nil)

    init() {}

    /// A registration calling `listener` with each element of the feed `feed` makes (given the registration's
    /// event handler), or once with the error that ends it.
    static func start<Snapshot: Sendable>(
        _ listener: @escaping @Sendable (Snapshot?, (any Error)?) -> Void,
        feed: (@escaping @Sendable (FeedEvent) -> Void) -> AsyncThrowingStream<Snapshot, any Error>
    ) -> ListenerRegistration {
        let registration = ListenerRegistration()
        let stream = feed { [registration] event in registration.note(event) }
        registration.task.withLock { task in
            task = Task {
                do {
                    for try await snapshot in stream { listener(snapshot, nil) }
                } catch {
                    listener(nil, error)
                }
            }
        }
        return registration
    }

    /// The error of the last poll or Listen stream when it failed transiently, `nil` once the feed recovers.
    public var lastError: FirestoreError? { error.withLock { $0 } }

    func note(_ event: FeedEvent) {
        error.withLock { error in
            switch event {
            case .pollFailed(let failure, _), .listenFailed(let failure, _, _): error = failure
            case .recovered, .listenRecovered: error = nil
            case .fellBackToFullDocuments, .fellBackToPolling, .snapshotsCoalesced, .orderingMismatch, .polled,
                .intervalNotKept, .resumedFromCheckpoint, .checkpointNotResumed, .listenProbed, .listenTargetReset,
                .listenRestored,
                .leaseAcquired, .leaseStolen, .leaseRenewedLate, .leaseLost, .leaseReleased, .leaseRenewalFailed,
                .backfillPage, .backfillRestarted, .publishFailed:
                break
            }
        }
    }

    /// Stops the listener: no callback is made after the one in progress, polling stops when no other
    /// listener shares the poller, and the in-flight request is cancelled.
    public func remove() { task.withLock { $0?.cancel() } }
}
