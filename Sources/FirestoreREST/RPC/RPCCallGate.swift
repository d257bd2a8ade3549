import FirestoreWire
import Synchronization

/// How many of a client's gRPC calls run at once, by ``HTTPRequest/Priority``, with the rule of ``CurlTransport``'s
/// connection pool: `normal` calls up to the capacity, `background` calls (a change feed's polls) up to three
/// quarters of it and one less (at least 1), `high` calls (the commit or rollback that ends a transaction) at once.
/// Waiting calls start in priority order, first come first served within a priority.
///
/// Why a gate when HTTP/2 multiplexes: without one, a crowd of polls reaches the server all at once and a write
/// waits behind all of them there (`WriteStarvationLiveTests`); with it, the polls queue here and a write or a read
/// goes first, as it does over REST.
package final class RPCCallGate: Sendable {
    private struct Waiter {
        var id: Int
        var priority: HTTPRequest.Priority
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiters: [Waiter] = []
        var nextID = 0
    }

    /// The most `normal` calls at once (at least 1).
    package let capacity: Int
    private let state = Mutex(State())

    /// A gate for `capacity` calls at once.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The most calls that may run when a call of `priority` starts.
    package func limit(for priority: HTTPRequest.Priority) -> Int {
        switch priority {
        case .high: return Int.max
        case .normal: return capacity
        case .background: return max(1, min(capacity - 1, capacity - capacity / 4))
        }
    }

    /// Waits (without blocking a thread) until a call of `priority` may start, and counts it as running; every
    /// successful `enter` is paired with one ``leave()``.
    /// - Throws: ``FirestoreError`` `.cancelled` when the task is cancelled while waiting.
    package func enter(_ priority: HTTPRequest.Priority) async throws {
        let admitted = state.withLock { state -> Bool in
            guard state.waiters.isEmpty || priority == .high, state.running < limit(for: priority) else { return false }
            state.running += 1
            return true
        }
        if admitted { return }
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let start = state.withLock { state -> Bool in
                    if Task.isCancelled { return false }
                    state.waiters.append(Waiter(id: id, priority: priority, continuation: continuation))
                    return true
                }
                if !start {
                    continuation.resume(throwing: Self.cancelled())
                } else {
                    admitWaiters()
                }
            }
        } onCancel: {
            let removed = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            removed?.continuation.resume(throwing: Self.cancelled())
        }
    }

    /// Counts a call as ended and starts the waiting calls that may start now.
    package func leave() {
        state.withLock { $0.running -= 1 }
        admitWaiters()
    }

    /// How many calls are running and waiting now.
    package var counts: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waiters.count) }
    }

    /// Starts waiters, most urgent first, while their limits allow; resumes them after the lock is released.
    private func admitWaiters() {
        let started = state.withLock { state -> [Waiter] in
            var started: [Waiter] = []
            while let index = Self.next(in: state.waiters),
                state.running < limit(for: state.waiters[index].priority)
            {
                started.append(state.waiters.remove(at: index))
                state.running += 1
            }
            return started
        }
        for waiter in started { waiter.continuation.resume() }
    }

    /// The index of the first waiter of the highest priority.
    private static func next(in waiters: [Waiter]) -> Int? {
        guard let top = waiters.map(\.priority).max() else { return nil }
        return waiters.firstIndex { $0.priority == top }
    }

    private static func cancelled() -> FirestoreError {
        FirestoreError(code: .cancelled, message: "cancelled while waiting to start a gRPC call")
    }
}
