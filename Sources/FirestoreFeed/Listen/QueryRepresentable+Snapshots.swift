import FirestoreREST

extension QueryRepresentable {
    /// A change feed of this query: polls runQuery every `interval` and yields a ``QuerySnapshot`` whenever
    /// the result changed (the first one always, with every document as `.added`). Its `documentChanges`
    /// follow the SDK rules (``DocumentChangeComputation``).
    ///
    /// A failed poll keeps the last good snapshot and is retried at the next interval; `onTransientError`
    /// hears of each such failure. The stream finishes with an error for an invalid query (before anything is
    /// sent) or a permanent server error (``PollingPolicy/isPermanent(_:)``). Cancelling the consuming task
    /// or dropping the stream stops polling.
    ///
    /// - Parameters:
    ///   - interval: time between polls (at least 10 ms).
    ///   - clock: the clock the poller sleeps on; inject a test clock to avoid real sleeping.
    ///   - onTransientError: called with each error that was retried.
    public func snapshots(
        interval: Duration = .seconds(1), clock: any Clock<Duration> = ContinuousClock(),
        onTransientError: (@Sendable (FirestoreError) -> Void)? = nil
    ) -> AsyncThrowingStream<QuerySnapshot, any Error> {
        let poller = QueryPoller(query: query, policy: PollingPolicy(interval: interval), clock: clock,
                                 onTransientError: onTransientError)
        return AsyncThrowingStream(bufferingPolicy: .unbounded) { continuation in
            let task = Task {
                do {
                    try await poller.run { continuation.yield($0) }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Calls `listener` with each snapshot of this query's change feed (see
    /// ``snapshots(interval:clock:onTransientError:)``), or once with the error that ended it, as the SDKs'
    /// `addSnapshotListener` does. Call ``ListenerRegistration/remove()`` to stop.
    /// - Parameters:
    ///   - interval: time between polls.
    ///   - listener: receives `(snapshot, nil)` for each snapshot and `(nil, error)` once when the feed ends
    ///     with an error. Calls are made one at a time, in order.
    @discardableResult
    public func addSnapshotListener(
        interval: Duration = .seconds(1),
        _ listener: @escaping @Sendable (QuerySnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        let stream = snapshots(interval: interval)
        let task = Task {
            do {
                for try await snapshot in stream { listener(snapshot, nil) }
            } catch {
                listener(nil, error)
            }
        }
        return ListenerRegistration(task: task)
    }
}

/// A handle on a snapshot listener; ``remove()`` stops it.
public final class ListenerRegistration: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) { self.task = task }

    /// Stops the listener: no callback is made after the one in progress, and polling stops.
    public func remove() { task.cancel() }
}
