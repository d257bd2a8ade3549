import FirestoreREST
import Synchronization

extension QueryRepresentable {
    /// A change feed of this query: polls every `interval` and yields a ``QuerySnapshot`` whenever the result
    /// changed (the first one always, with every document as `.added`). Its `documentChanges` follow the SDK
    /// rules (`DocumentChangeComputation`); each snapshot carries its `readTime` and ``PollStatistics``.
    ///
    /// - Consistency: every snapshot is the result at one `readTime`; in keys mode the changed documents are
    ///   fetched at that same time. A response older than the last applied one is dropped.
    /// - A change: a document is modified only when its `updateTime` moved; one that stops matching is removed,
    ///   one that starts matching is added.
    /// - Errors: a transient error keeps the last snapshot and is retried with back-off (`PollingPolicy`);
    ///   `onEvent` hears `FeedEvent.pollFailed(_:retryIn:)` and `FeedEvent.recovered`. An invalid query
    ///   (before anything is sent) or a permanent server error ends the stream with that `FirestoreError`.
    /// - Sharing: listeners on the same query, mode and policy share one poller and one request per interval
    ///   (`PollerPool.shared`). Cancelling the consuming task or dropping the stream leaves; the last to
    ///   leave stops polling and cancels the in-flight request.
    ///
    /// - Parameters:
    ///   - interval: time between polls (at least 10 ms); ignored when `policy` is given.
    ///   - mode: `PollMode.keys` (two phases, the default) or `PollMode.fullDocuments`.
    ///   - policy: the full polling policy (idle back-off, error back-off, jitter).
    ///   - onEvent: called with feed events (failed polls, recovery, fallback to full documents).
    public func snapshots(
        interval: Duration = .seconds(1), mode: PollMode = .keys, policy: PollingPolicy? = nil,
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) -> AsyncThrowingStream<QuerySnapshot, any Error> {
        PollerPool.shared.snapshots(
            of: query, mode: mode, policy: policy ?? PollingPolicy(interval: interval),
            onEvent: onEvent)
    }

    /// Calls `listener` with each snapshot of this query's change feed (see
    /// ``snapshots(interval:mode:policy:onEvent:)``), or once with the error that ended it, as the SDKs'
    /// `addSnapshotListener` does. Call `ListenerRegistration.remove()` to stop; the registration's
    /// `ListenerRegistration.lastError` shows a transient error until the next good poll.
    /// - Parameters:
    ///   - interval: time between polls.
    ///   - mode: keys (default) or full documents.
    ///   - listener: receives `(snapshot, nil)` for each snapshot and `(nil, error)` once when the feed ends
    ///     with an error. Calls are made one at a time, in order.
    @discardableResult
    public func addSnapshotListener(
        interval: Duration = .seconds(1), mode: PollMode = .keys,
        _ listener: @escaping @Sendable (QuerySnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        let registration = ListenerRegistration()
        let stream = snapshots(interval: interval, mode: mode) { [registration] event in
            registration.note(event)
        }
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
}

/// A handle on a snapshot listener; ``remove()`` stops it.
public final class ListenerRegistration: Sendable {
    let task = Mutex<Task<Void, Never>?>(nil)
    private let error = Mutex<FirestoreError?>(nil)

    init() {}

    /// The error of the last poll when it failed transiently, `nil` once a poll succeeds again.
    public var lastError: FirestoreError? { error.withLock { $0 } }

    func note(_ event: FeedEvent) {
        error.withLock { error in
            switch event {
            case .pollFailed(let failure, _): error = failure
            case .recovered: error = nil
            case .fellBackToFullDocuments: break
            }
        }
    }

    /// Stops the listener: no callback is made after the one in progress, polling stops when no other
    /// listener shares the poller, and the in-flight request is cancelled.
    public func remove() { task.withLock { $0?.cancel() } }
}
