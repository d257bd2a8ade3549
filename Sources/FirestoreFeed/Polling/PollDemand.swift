import Synchronization

/// Holds a poller's next poll until one of its listeners waits for a snapshot: polling is done on demand.
///
/// A consumer that stopped asking without dropping its iterator looks exactly like a busy one: a `break` out of
/// `for try await snapshot in query.snapshots()` in the top-level code of a `main.swift` leaves the loop's iterator
/// alive (top-level code ends in `exit`, so its values are never released), and the feed hears nothing. Polling
/// only while a listener waits makes such a loop cost nothing after the `break` (issue 17,
/// `FeedLeaveLiveTests`), and a consumer slower than the interval is polled at its own pace.
final class PollDemand: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Whether ``wait(until:)`` is holding its caller now.
    var isWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// A listener started waiting for a snapshot. Never blocks.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns `true` once `isWanted()` holds (checked now and after every ``signal()``), `false` when the calling
    /// task is cancelled first. One caller at a time.
    func wait(until isWanted: () -> Bool) async -> Bool {
        while !Task.isCancelled {
            state.withLock { $0.signalled = false }
            if isWanted() { return true }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.signalled || Task.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
        return false
    }
}
