import FirestoreWire
import Synchronization

extension BulkWriter {
    /// One write enqueued on a ``BulkWriter``: what it writes, and its result once the server has applied or refused
    /// it (the Node SDK's per-write promise). The write is sent whether or not anyone awaits ``result``.
    public final class Operation: Sendable {
        /// The document written.
        public let document: DocumentReference
        /// The kind of write.
        public let operationType: OperationType
        /// The write as it is sent.
        public let write: Write
        /// The order of enqueueing, from 0 (what `flush()` waits for).
        let sequence: UInt64
        private let state = Mutex(State())

        private struct State {
            var outcome: Result<WriteResult, BulkWriterError>?
            var waiters: [(id: Int, continuation: CheckedContinuation<WriteResult, any Error>)] = []
            var nextWaiter = 0
            var failedAttempts = 0
            var backoff = Duration.zero
        }

        init(document: DocumentReference, operationType: OperationType, write: Write, sequence: UInt64) {
            self.document = document
            self.operationType = operationType
            self.write = write
            self.sequence = sequence
        }

        /// The server's result for the write, once it has one: waits (without blocking a thread) until the write
        /// succeeded, or failed for good (its error is not retried, or the attempts ran out).
        ///
        /// Writes are sent when their batch fills (20 writes) or at ``BulkWriter/flush()`` or ``BulkWriter/close()``;
        /// await a result after one of those, or from another task.
        /// - Throws: ``BulkWriterError`` for a write that failed for good; `CancellationError` when the awaiting task
        ///   is cancelled (the write goes on).
        public var result: WriteResult {
            get async throws {
                let id = state.withLock { state -> Int in
                    state.nextWaiter += 1
                    return state.nextWaiter
                }
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation {
                        (continuation: CheckedContinuation<WriteResult, any Error>) in
                        // Decided under the lock: settled, cancelled already, or waiting (then settle or the
                        // cancellation handler resumes it, whichever removes it first).
                        let settled = state.withLock { state -> Result<WriteResult, any Error>? in
                            if let outcome = state.outcome { return outcome.mapError { $0 } }
                            if Task.isCancelled { return .failure(CancellationError()) }
                            state.waiters.append((id, continuation))
                            return nil
                        }
                        if let settled { continuation.resume(with: settled) }
                    }
                } onCancel: {
                    let waiter = state.withLock { state -> CheckedContinuation<WriteResult, any Error>? in
                        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                        return state.waiters.remove(at: index).continuation
                    }
                    waiter?.resume(throwing: CancellationError())
                }
            }
        }

        /// The outcome if the write has one, without waiting: `nil` while it is pending.
        public var outcome: Result<WriteResult, BulkWriterError>? { state.withLock { $0.outcome } }

        /// The wait before the operation's next attempt (zero before any failure).
        var backoff: Duration { state.withLock { $0.backoff } }

        /// Counts a failed attempt; returns how many have failed.
        func noteFailure() -> Int {
            state.withLock { state in
                state.failedAttempts += 1
                return state.failedAttempts
            }
        }

        /// Sets the wait before the retry of an attempt that failed with `code` (``BulkWriterBackoff``).
        func noteRetry(after code: FirestoreError.Code) {
            state.withLock { state in state.backoff = BulkWriterBackoff.next(after: state.backoff, failedWith: code) }
        }

        /// Settles the operation and wakes everyone awaiting ``result``; a second call does nothing.
        /// - Returns: whether this call settled it.
        @discardableResult
        func settle(_ outcome: Result<WriteResult, BulkWriterError>) -> Bool {
            let waiters = state.withLock { state -> [CheckedContinuation<WriteResult, any Error>]? in
                guard state.outcome == nil else { return nil }
                state.outcome = outcome
                defer { state.waiters = [] }
                return state.waiters.map(\.continuation)
            }
            guard let waiters else { return false }
            for waiter in waiters { waiter.resume(with: outcome.mapError { $0 }) }
            return true
        }
    }
}
