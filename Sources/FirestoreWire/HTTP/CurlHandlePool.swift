import Synchronization

/// A bounded pool of libcurl easy handles, so consecutive requests reuse handles and with them their live
/// connections (HTTP keep-alive, TLS sessions, DNS cache), and concurrent requests never open more than
/// `capacity` pooled connections.
///
/// - At most `capacity` pooled handles ever exist. Each is either idle in the pool or checked out by exactly one
///   transfer, so no handle is used by two threads at once.
/// - Each ``HTTPRequest/Priority`` may only take a pooled handle while fewer than its limit are checked out
///   (``limit(for:)``): `normal` and `high` up to `capacity`, `background` three quarters of it and at least one
///   less. So `background` requests (change-feed polls) always leave handles to the others.
/// - A `high` request (a transaction's commit or rollback) never waits: when no pooled handle is free it gets a
///   handle of its own, dropped (with its connection) when it is returned. The emulator holds a commit until its
///   transaction gets the locks it needs, which other open transactions of the same client may hold until their
///   own commits arrive; a commit waiting here for a connection would keep them all waiting until the lock
///   timeout aborts them (issue 19).
/// - ``checkOut(url:priority:)`` takes the most recently returned idle handle (the one most likely to hold a
///   live connection), creates a new one while fewer than `capacity` exist, or else suspends the calling task
///   until ``checkIn(_:)`` hands it a handle. A returned handle goes to the highest-priority waiter whose limit
///   allows it, first come, first served within a priority; a waiting task that is cancelled stops waiting
///   with a `.cancelled` error.
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
        /// Pooled handles created (at most `capacity`).
        var created = 0
        /// Pooled handles checked out.
        var inUse = 0
        /// The extra handles of `high` requests checked out now; dropped when returned.
        var extra: Set<ObjectIdentifier> = []
        /// How many extra handles were ever made.
        var extraCreated = 0
        /// Per priority (by raw value), in arrival order.
        var waiters: [[Waiter]] = Array(repeating: [], count: HTTPRequest.Priority.allCases.count)
        var nextWaiterID: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The most handles that ever exist at once, at least 1.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// The most pooled handles that may be checked out when a request of `priority` takes one: `high` and
    /// `normal` up to the capacity, `background` up to three quarters of it and one less (at least 1). For the
    /// default 8: 8, 8 and 6.
    func limit(for priority: HTTPRequest.Priority) -> Int {
        switch priority {
        case .high, .normal: return capacity
        case .background: return max(1, min(capacity - 1, capacity - capacity / 4))
        }
    }

    /// A handle for one transfer: an idle one, a new one, or (when the priority's limit is reached) the next one
    /// returned that the priority may take; for a `high` request, then, an extra handle at once.
    /// - Parameters:
    ///   - url: the request URL, named in the error when the task is cancelled while waiting.
    ///   - priority: the request's priority, which decides its limit and its place among the waiters.
    /// - Throws: ``FirestoreError`` `.cancelled` when the task is cancelled while waiting, `.unknown` when
    ///   libcurl cannot create a handle.
    func checkOut(url: String, priority: HTTPRequest.Priority = .normal) async throws(FirestoreError)
        -> CurlEasyHandle
    {
        try CurlRuntime.initialize()
        enum Decision {
            case ready(CurlEasyHandle)
            case failed(FirestoreError)
            case extra
            case wait(UInt64)
        }
        let limit = limit(for: priority)
        let decision: Decision = state.withLock { state in
            // Waiters of this or a higher priority that may take a handle come first.
            let waitersFirst = HTTPRequest.Priority.allCases.contains { other in
                other >= priority && !state.waiters[other.rawValue].isEmpty && state.inUse < self.limit(for: other)
            }
            if state.inUse < limit, !waitersFirst {
                if let handle = state.idle.popLast() {
                    state.inUse += 1
                    return .ready(handle)
                }
                if state.created < capacity {
                    // curl_easy_init only allocates; creating under the lock keeps `created` exact.
                    do throws(FirestoreError) {
                        let handle = try CurlEasyHandle()
                        state.created += 1
                        state.inUse += 1
                        return .ready(handle)
                    } catch {
                        return .failed(error)
                    }
                }
            }
            if priority == .high { return .extra }
            state.nextWaiterID += 1
            state.waiters[priority.rawValue].append(Waiter(id: state.nextWaiterID))
            return .wait(state.nextWaiterID)
        }
        switch decision {
        case .ready(let handle): return handle
        case .failed(let error): throw error
        case .extra:
            // A `high` request never waits: a handle of its own, outside the pool.
            let handle = try CurlEasyHandle()
            state.withLock { state in
                state.extra.insert(ObjectIdentifier(handle))
                state.extraCreated += 1
            }
            return handle
        case .wait(let id):
            do {
                return try await waitForHandle(id: id, priority: priority)
            } catch {
                throw CurlErrorMapping.cancelled(url: url)
            }
        }
    }

    /// Suspends until waiter `id` is handed a handle, or throws `CancellationError` when the task is cancelled.
    private func waitForHandle(id: UInt64, priority: HTTPRequest.Priority) async throws -> CurlEasyHandle {
        let queue = priority.rawValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<CurlEasyHandle, any Error>) in
                let handoffs: [Handoff] = state.withLock { state in
                    guard let index = state.waiters[queue].firstIndex(where: { $0.id == id }) else {
                        // Not reachable: only this task removes its waiter.
                        return [Handoff(continuation: continuation, result: .failure(CancellationError()))]
                    }
                    if state.waiters[queue][index].cancelled {
                        state.waiters[queue].remove(at: index)
                        return [Handoff(continuation: continuation, result: .failure(CancellationError()))]
                            + dispatch(&state)
                    }
                    state.waiters[queue][index].continuation = continuation
                    // A handle returned between registration and now goes to this waiter if it is first in line.
                    return dispatch(&state)
                }
                for handoff in handoffs { handoff.continuation.resume(with: handoff.result) }
            }
        } onCancel: {
            let handoffs: [Handoff] = state.withLock { state in
                guard let index = state.waiters[queue].firstIndex(where: { $0.id == id }) else { return [] }  // served
                guard let continuation = state.waiters[queue][index].continuation else {
                    state.waiters[queue][index].cancelled = true
                    return []
                }
                state.waiters[queue].remove(at: index)
                return [Handoff(continuation: continuation, result: .failure(CancellationError()))] + dispatch(&state)
            }
            for handoff in handoffs { handoff.continuation.resume(with: handoff.result) }
        }
    }

    /// A waiter to resume outside the lock, with a handle or an error.
    private struct Handoff {
        let continuation: CheckedContinuation<CurlEasyHandle, any Error>
        let result: Result<CurlEasyHandle, any Error>
    }

    /// Pairs idle handles with waiters: the highest priority first, within a priority the longest-waiting,
    /// each only while fewer than its priority's limit are checked out. A first-in-line waiter that has not
    /// suspended yet keeps its place (it takes the handle itself when it suspends), and lower priorities do not
    /// pass it.
    private func dispatch(_ state: inout State) -> [Handoff] {
        var handoffs: [Handoff] = []
        serving: while !state.idle.isEmpty {
            for priority in HTTPRequest.Priority.allCases.reversed() {
                let queue = priority.rawValue
                guard let first = state.waiters[queue].first else { continue }
                guard state.inUse < limit(for: priority) else { continue }
                guard let continuation = first.continuation else { break serving }
                guard let handle = state.idle.popLast() else { break serving }
                state.waiters[queue].removeFirst()
                state.inUse += 1
                handoffs.append(Handoff(continuation: continuation, result: .success(handle)))
                continue serving
            }
            break
        }
        return handoffs
    }

    /// Returns `handle` to the pool, or hands it straight to the highest-priority waiter that may take it
    /// (the longest-waiting one of that priority). The caller must not use it afterwards.
    func checkIn(_ handle: CurlEasyHandle) {
        let handoffs: [Handoff] = state.withLock { state in
            if state.extra.remove(ObjectIdentifier(handle)) != nil { return [] }  // dropped with its connection
            state.inUse -= 1
            state.idle.append(handle)
            return dispatch(&state)
        }
        for handoff in handoffs { handoff.continuation.resume(with: handoff.result) }
    }

    /// Drops the idle handles, closing their kept-alive connections (`curl_easy_cleanup`, outside the lock); the
    /// handles checked out come back as usual, and new ones are made as needed.
    func closeIdle() {
        let dropped = state.withLock { state -> [CurlEasyHandle] in
            defer {
                state.created -= state.idle.count
                state.idle = []
            }
            return state.idle
        }
        withExtendedLifetime(dropped) {}
    }

    /// How many idle handles the pool holds.
    var idleCount: Int {
        state.withLock { $0.idle.count }
    }

    /// How many pooled handles exist (idle or checked out).
    var createdCount: Int {
        state.withLock { $0.created }
    }

    /// How many extra handles `high` requests got because no pooled one was free.
    var extraCreatedCount: Int {
        state.withLock { $0.extraCreated }
    }

    /// How many pooled handles are checked out.
    var inUseCount: Int {
        state.withLock { $0.inUse }
    }

    /// How many tasks wait for a handle with `priority`.
    func waitingCount(_ priority: HTTPRequest.Priority) -> Int {
        state.withLock { $0.waiters[priority.rawValue].count }
    }
}
