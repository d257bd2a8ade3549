import FirestoreREST
import Synchronization

/// Runs a checkpoint store's jobs one at a time, in the order they were submitted, on a thread of its own: SQLite
/// reads and writes wait on the disk (and on another process's write lock, up to the busy timeout), so they never
/// run on a Swift concurrency thread (README, "Contributor rule: never block a Swift concurrency thread").
///
/// A thread is started when a job arrives and nothing runs; it drains the queue and ends when the queue is empty,
/// so an idle store holds no thread. Jobs submitted in order run in that order (a commit submitted before a lock
/// release runs before it).
final class CheckpointWorker: Sendable {
    private struct Entry {
        let run: @Sendable () -> Void
        let refuse: @Sendable () -> Void
    }

    private struct State {
        var jobs: [Entry] = []
        var head = 0
        var isRunning = false
    }

    private let state = Mutex(State())
    private let name: String

    /// A worker whose threads are named `name` (the first 15 bytes).
    init(name: String) { self.name = name }

    /// Runs `job` after every job submitted before it and returns its result.
    /// - Throws: what `job` throws; `FirestoreError` `.resourceExhausted` when the system refused a thread.
    func run<T: Sendable>(_ job: @escaping @Sendable () throws(FirestoreError) -> T) async throws(FirestoreError) -> T {
        let result: Result<T, FirestoreError> = await withCheckedContinuation { continuation in
            submit {
                continuation.resume(returning: Result { () throws(FirestoreError) -> T in try job() })
            } refused: {
                continuation.resume(
                    returning: .failure(
                        FirestoreError(
                            code: .resourceExhausted, message: "checkpoint store: the system refused a new thread")))
            }
        }
        return try result.get()
    }

    /// Queues `job`; `refused` runs instead (on the caller's thread) when no thread could be started for it.
    private func submit(_ job: @escaping @Sendable () -> Void, refused: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.jobs.append(Entry(run: job, refuse: refused))
            guard !state.isRunning else { return false }
            state.isRunning = true
            return true
        }
        guard start else { return }
        let started = TransferThread.start(name: name) { [self] in drain() }
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

    /// Runs queued jobs until the queue is empty. On the worker's own thread.
    private func drain() {
        while true {
            let job = state.withLock { state -> Entry? in
                guard state.head < state.jobs.count else {
                    state.jobs = []
                    state.head = 0
                    state.isRunning = false
                    return nil
                }
                let job = state.jobs[state.head]
                state.head += 1
                return job
            }
            guard let job else { return }
            job.run()
        }
    }
}
