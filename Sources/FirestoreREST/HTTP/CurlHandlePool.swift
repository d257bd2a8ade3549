import Synchronization

/// A bounded pool of libcurl easy handles, so consecutive requests reuse handles and with them their live
/// connections (HTTP keep-alive, TLS sessions, DNS cache), and concurrent requests never open more than
/// `capacity` connections.
///
/// - At most `capacity` handles ever exist. Each is either idle in the pool or checked out by exactly one
///   transfer, so no handle is used by two threads at once.
/// - ``checkOut(url:)`` takes the most recently returned idle handle (the one most likely to hold a live
///   connection), creates a new one while fewer than `capacity` exist, or else suspends the calling task
///   until ``checkIn(_:)`` hands it a handle. Waiters are served first come, first served; a waiting task
///   that is cancelled stops waiting with a `.cancelled` error.
final class CurlHandlePool: Sendable {
    private struct Waiter {
        let id: UInt64
        /// `nil` between registration and suspension; the task cannot be resumed before it is set.
        var continuation: CheckedContinuation<CurlEasyHandle, any Error>?
        /// Set when the task was cancelled before it suspended.
        var cancelled = false
    }

    private struct State {
        var idle: [CurlEasyHandle] = []
        var created = 0
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The most handles that ever exist at once, at least 1.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// A handle for one transfer: an idle one, a new one, or (when `capacity` handles are all busy) the next
    /// one returned.
    /// - Parameter url: the request URL, named in the error when the task is cancelled while waiting.
    /// - Throws: ``FirestoreError`` `.cancelled` when the task is cancelled while waiting, `.unknown` when
    ///   libcurl cannot create a handle.
    func checkOut(url: String) async throws(FirestoreError) -> CurlEasyHandle {
        try CurlRuntime.initialize()
        enum Decision {
            case ready(CurlEasyHandle)
            case failed(FirestoreError)
            case wait(UInt64)
        }
        let decision: Decision = state.withLock { state in
            if let handle = state.idle.popLast() { return .ready(handle) }
            if state.created < capacity {
                // curl_easy_init only allocates; creating under the lock keeps `created` exact.
                do throws(FirestoreError) {
                    let handle = try CurlEasyHandle()
                    state.created += 1
                    return .ready(handle)
                } catch {
                    return .failed(error)
                }
            }
            state.nextWaiterID += 1
            state.waiters.append(Waiter(id: state.nextWaiterID))
            return .wait(state.nextWaiterID)
        }
        switch decision {
        case .ready(let handle): return handle
        case .failed(let error): throw error
        case .wait(let id):
            do {
                return try await waitForHandle(id: id)
            } catch {
                throw CurlErrorMapping.cancelled(url: url)
            }
        }
    }

    /// Suspends until waiter `id` is handed a handle, or throws `CancellationError` when the task is cancelled.
    private func waitForHandle(id: UInt64) async throws -> CurlEasyHandle {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<CurlEasyHandle, any Error>) in
                enum Outcome {
                    case suspended
                    case resume(Result<CurlEasyHandle, any Error>)
                }
                let outcome: Outcome = state.withLock { state in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                        return .resume(.failure(CancellationError()))  // not reachable: only this task removes it
                    }
                    if state.waiters[index].cancelled {
                        state.waiters.remove(at: index)
                        return .resume(.failure(CancellationError()))
                    }
                    if let handle = state.idle.popLast() {  // returned between registration and now
                        state.waiters.remove(at: index)
                        return .resume(.success(handle))
                    }
                    state.waiters[index].continuation = continuation
                    return .suspended
                }
                if case .resume(let result) = outcome {
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            let continuation: CheckedContinuation<CurlEasyHandle, any Error>? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }  // served
                guard let continuation = state.waiters[index].continuation else {
                    state.waiters[index].cancelled = true
                    return nil
                }
                state.waiters.remove(at: index)
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Returns `handle` to the pool, or hands it straight to the longest-waiting task. The caller must not use
    /// it afterwards.
    func checkIn(_ handle: CurlEasyHandle) {
        let waiter: CheckedContinuation<CurlEasyHandle, any Error>? = state.withLock { state in
            if let index = state.waiters.firstIndex(where: { $0.continuation != nil }) {
                return state.waiters.remove(at: index).continuation
            }
            state.idle.append(handle)
            return nil
        }
        waiter?.resume(returning: handle)
    }

    /// How many idle handles the pool holds.
    var idleCount: Int {
        state.withLock { $0.idle.count }
    }

    /// How many handles exist (idle or checked out).
    var createdCount: Int {
        state.withLock { $0.created }
    }
}
