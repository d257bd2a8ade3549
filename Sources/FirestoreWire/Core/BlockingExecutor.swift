import Dispatch
import Synchronization

/// The one way the package runs blocking work (a libcurl transfer, an SQLite statement, a file read, a write to a
/// pipe, a DNS lookup) off Swift's cooperative pool, whose threads are few (two on a two-core machine): a queue of
/// jobs run in order on a thread of its own, started when a job comes and ended when the queue has stayed empty for
/// its idle linger (``defaultIdleLinger``: a stream of jobs a few microseconds apart, such as the lines of a
/// 100,000-document query printed one by one, runs on one thread instead of starting a thread for each). Each
/// ``TransferThread`` it starts is a plain POSIX thread; `run` suspends its caller, never blocks it.
///
/// Two uses: a serial executor for a resource that must be used by one thread at a time (an SQLite connection, the
/// CLI's stdout and stderr), and ``detached(name:_:)`` for one blocking job on a thread of its own (a request, a
/// credentials file read). The gRPC channel's network thread (``HTTP2Loop``) is a long-lived loop of its own.
package final class BlockingExecutor: Sendable {
    private struct Entry {
        let run: @Sendable () -> Void
        let refuse: @Sendable () -> Void
    }

    private struct State {
        var jobs: [Entry] = []
        var head = 0
        var isRunning = false
        /// The thread is parked in ``drain()``, waiting up to its idle linger for a job.
        var isParked = false
    }

    /// How long a serial executor's thread waits for another job once its queue is empty before it ends, unless the
    /// executor is made with another: 50 ms.
    package static let defaultIdleLinger: DispatchTimeInterval = .milliseconds(50)

    /// This executor's wait for another job before its thread ends.
    private let idleLinger: DispatchTimeInterval

    private let state = Mutex(State())
    /// Wakes the parked thread when a job comes (signalled once per park; a signal left over from a park that timed
    /// out only wakes the next park early, which then finds the queue as it is).
    private let wakeup = DispatchSemaphore(value: 0)
    private let name: String
    private let onThreadStart: (@Sendable () -> Void)?

    /// A serial executor whose threads are named `name` (at most 15 bytes show).
    /// - Parameters:
    ///   - idleLinger: how long its thread waits for another job once the queue is empty before it ends.
    ///   - onThreadStart: run first on every thread the executor starts (say, to unblock a signal).
    package init(
        name: String, idleLinger: DispatchTimeInterval = BlockingExecutor.defaultIdleLinger,
        onThreadStart: (@Sendable () -> Void)? = nil
    ) {
        self.name = name
        self.idleLinger = idleLinger
        self.onThreadStart = onThreadStart
    }

    /// Runs `job` after the jobs submitted before it, on the executor's thread, and returns its result.
    /// - Throws: what `job` throws; ``FirestoreError`` `.resourceExhausted` when the system refuses a new thread
    ///   (then `job` did not run).
    package func run<T: Sendable>(_ job: @escaping @Sendable () throws(FirestoreError) -> T)
        async throws(FirestoreError)
        -> T
    {
        let result: Result<T, FirestoreError> = await withCheckedContinuation { continuation in
            submit {
                continuation.resume(returning: Result { () throws(FirestoreError) -> T in try job() })
            } refused: { [name] in
                continuation.resume(returning: .failure(Self.refused(name)))
            }
        }
        return try result.get()
    }

    /// Queues `job` without waiting for it; `refused` runs instead when the system refuses a new thread.
    package func submit(_ job: @escaping @Sendable () -> Void, refused: @escaping @Sendable () -> Void = {}) {
        enum Action { case none, wake, start }
        let action = state.withLock { state -> Action in
            state.jobs.append(Entry(run: job, refuse: refused))
            guard !state.isRunning else {
                guard state.isParked else { return .none }
                state.isParked = false
                return .wake
            }
            state.isRunning = true
            return .start
        }
        switch action {
        case .none: return
        case .wake:
            wakeup.signal()
            return
        case .start: break
        }
        let started = TransferThread.start(name: name) { [self] in
            onThreadStart?()
            drain()
        }
        if !started {
            let orphans = state.withLock { state -> [Entry] in
                state.isRunning = false
                let waiting = Array(state.jobs[state.head...])
                state.jobs = []
                state.head = 0
                return waiting
            }
            // Every queued job (this one included) is answered as refused; none ran.
            for orphan in orphans { orphan.refuse() }
        }
    }

    /// Runs one blocking `job` on a thread of its own named `name`, and returns its result.
    /// - Throws: what `job` throws; ``FirestoreError`` `.resourceExhausted` when the system refuses a new thread.
    package static func detached<T: Sendable, E: Error>(
        name: String, _ job: @escaping @Sendable () throws(E) -> T
    ) async throws -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            let started = TransferThread.start(name: name) {
                continuation.resume(returning: Result { () throws(any Error) -> T in try job() })
            }
            if !started { continuation.resume(returning: .failure(refused(name))) }
        }
        return try result.get()
    }

    private static func refused(_ name: String) -> FirestoreError {
        FirestoreError(code: .resourceExhausted, message: "\(name): the system refused a new thread")
    }

    /// Runs the queued jobs in order; when none is left it parks for up to its idle linger; once the queue is still
    /// empty after a park that timed out, the thread ends.
    private func drain() {
        enum Step {
            case run(Entry)
            case park
            case end
        }
        var lingered = false
        while true {
            let step = state.withLock { state -> Step in
                guard state.head < state.jobs.count else {
                    guard lingered else {
                        // The jobs run so far (and what they hold) are let go before the park, not when it ends.
                        state.jobs.removeAll(keepingCapacity: true)
                        state.head = 0
                        state.isParked = true
                        return .park
                    }
                    state.jobs = []
                    state.head = 0
                    state.isRunning = false
                    state.isParked = false
                    return .end
                }
                let job = state.jobs[state.head]
                state.head += 1
                // A queue that never runs dry lets go of its run jobs once they are half of it.
                if state.head >= 256, state.head * 2 >= state.jobs.count {
                    state.jobs.removeFirst(state.head)
                    state.head = 0
                }
                return .run(job)
            }
            switch step {
            case .run(let job):
                job.run()
                lingered = false
            case .park:
                // Timed out: the queue gets one more look (a job may have come just now), then the thread ends.
                lingered = wakeup.wait(timeout: .now() + idleLinger) == .timedOut
            case .end:
                return
            }
        }
    }
}
