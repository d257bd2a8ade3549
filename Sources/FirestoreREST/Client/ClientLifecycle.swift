import FirestoreWire
import Synchronization

/// Whether a client (and its copies: ``Firestore/using(protocol:)``, ``Firestore/settingServerTimestamp(on:)``) is
/// open, and what ``Firestore/shutdown()`` must end: the requests in flight (``guarded(_:)``) and the long-lived
/// objects that registered a shutdown handler (``register(_:)``: the feed module's pollers and Listen streams, which
/// this module cannot name).
///
/// A lock guards the state and nothing else: handlers run, and tasks are cancelled, after it is released.
package final class ClientLifecycle: Sendable {
    private enum Phase {
        case open
        case shuttingDown
        case shutDown
    }

    private struct State {
        var phase = Phase.open
        var nextID = 0
        /// The shutdown handlers of long-lived objects, by registration.
        var handlers: [Int: @Sendable () async -> Void] = [:]
        /// The requests in flight: how to cancel each one's task and wait for it, used by the shutdown.
        var operations: [Int: Operation] = [:]
        /// Callers of ``shutDown(closing:)`` after the first, resumed when it has finished.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct Operation {
        let cancel: @Sendable () -> Void
        let wait: @Sendable () async -> Void
    }

    private let state = Mutex(State())
    /// The error every call fails with once the client is shut down.
    package let shutDownError: FirestoreError

    /// An open client's lifecycle; `database` names the client in ``shutDownError``.
    package init(database: DatabaseID) {
        shutDownError = FirestoreError(
            code: .cancelled,
            message: "the Firestore client of \(database.name) was shut down (Firestore.shutdown()); "
                + "make a new client to go on")
    }

    /// Whether ``Firestore/shutdown()`` has begun.
    package var isShutDown: Bool { state.withLock { $0.phase != .open } }

    /// Throws ``shutDownError`` once ``Firestore/shutdown()`` has begun.
    package func check() throws(FirestoreError) {
        if isShutDown { throw shutDownError }
    }

    /// Registers `handler`, run (and awaited) once by the shutdown; it ends what registered it.
    /// - Returns: the registration for ``unregister(_:)``, or `nil` when the shutdown has already begun (then
    ///   `handler` is not kept and the caller ends its object itself).
    package func register(_ handler: @escaping @Sendable () async -> Void) -> Int? {
        state.withLock { state in
            guard state.phase == .open else { return nil }
            state.nextID += 1
            state.handlers[state.nextID] = handler
            return state.nextID
        }
    }

    /// Forgets a handler whose object ended by itself.
    package func unregister(_ id: Int) {
        _ = state.withLock { $0.handlers.removeValue(forKey: id) }
    }

    /// Runs `operation` (a request) so that the shutdown can end it: it runs in a task of its own, which the
    /// shutdown cancels and waits for; cancelling the calling task cancels it too.
    /// - Throws: ``shutDownError`` when the client is shut down before or while it runs; else what `operation`
    ///   throws.
    package func guarded<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await operation() }
        let id = state.withLock { state -> Int? in
            guard state.phase == .open else { return nil }
            state.nextID += 1
            state.operations[state.nextID] = Operation(cancel: { task.cancel() }, wait: { _ = await task.result })
            return state.nextID
        }
        guard let id else {
            task.cancel()
            _ = await task.result
            throw shutDownError
        }
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        state.withLock { _ = $0.operations.removeValue(forKey: id) }
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            if isShutDown { throw shutDownError }
            throw error
        }
    }

    /// Shuts the client down once: no new work is taken, every registered handler runs and every request in
    /// flight is cancelled (all at once) and awaited, then `closing` runs (the client's channel and connections).
    /// A second caller waits until the first has finished.
    package func shutDown(closing: @Sendable () async -> Void) async {
        let first = state.withLock { state -> Bool in
            guard state.phase == .open else { return false }
            state.phase = .shuttingDown
            return true
        }
        guard first else {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    guard state.phase == .shutDown else {
                        state.waiters.append(continuation)
                        return false
                    }
                    return true
                }
                if done { continuation.resume() }
            }
            return
        }
        let (handlers, operations) = state.withLock { state in
            defer {
                state.handlers = [:]
                state.operations = [:]
            }
            return (Array(state.handlers.values), Array(state.operations.values))
        }
        for operation in operations { operation.cancel() }
        await withTaskGroup(of: Void.self) { group in
            for handler in handlers { group.addTask { await handler() } }
            for operation in operations { group.addTask { await operation.wait() } }
        }
        await closing()
        let waiters = state.withLock { state in
            state.phase = .shutDown
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
