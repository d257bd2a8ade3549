extension Firestore {
    /// Runs `updateBlock` in a read-write transaction and commits its writes atomically, retrying the whole
    /// closure when the transaction loses a conflict (`ABORTED`, REST reference:
    /// `projects.databases.documents.commit`).
    ///
    /// ```swift
    /// let total = try await db.runTransaction { transaction in
    ///     let counter = try await transaction.getDocument(db.document("counters/visits"))
    ///     let next = (counter.get("n").flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? 0) + 1
    ///     try transaction.setData(["n": .integer(next)], forDocument: counter.reference)
    ///     return next
    /// }
    /// ```
    ///
    /// Each attempt runs `updateBlock` with a fresh ``Transaction`` whose reads happen inside it: the first read
    /// begins the transaction (`newTransaction`, saving a round trip as the Node SDK does; an attempt without
    /// reads begins it with beginTransaction at the commit; a retry names the aborted one in `retryTransaction`),
    /// then commits the buffered writes with the transaction ID. A retryable failure of a read or of the commit
    /// (`ABORTED`, e.g. the emulator's "Transaction lock timeout." under contention, or a transaction the server
    /// already closed: `INVALID_ARGUMENT` "Transaction is invalid or closed." / expired) rolls back and runs the
    /// closure again after a jittered exponential backoff (100 ms doubling to at most 5 s, ×0.5–1.5), up to
    /// `maxAttempts` attempts in all. So `updateBlock` may run several times: keep side effects out of it.
    ///
    /// The closure runs on the caller's actor (`isolation`), so it need not be `@Sendable`.
    /// - Parameters:
    ///   - maxAttempts: attempts in all, at least 1 (default 5).
    ///   - isolation: the caller's actor, on which the closure runs (filled in by the compiler).
    ///   - updateBlock: reads with the transaction, then buffers writes; its result is returned after a
    ///     successful commit.
    /// - Returns: the result of the attempt that committed.
    /// - Throws: the closure's own error after rolling the transaction back (nothing is written);
    ///   ``FirestoreError`` `.invalidArgument` for `maxAttempts < 1`; the last retryable error when every attempt
    ///   failed; any other error of beginTransaction, a read or the commit; `CancellationError` when the task is
    ///   cancelled during a backoff.
    public func runTransaction<Result>(
        maxAttempts: Int = 5, isolation: isolated (any Actor)? = #isolation,
        _ updateBlock: (Transaction) async throws -> Result
    ) async throws -> Result {
        guard maxAttempts >= 1 else {
            throw FirestoreError.invalidArgument("runTransaction needs maxAttempts >= 1, not \(maxAttempts)")
        }
        var previousID: String?
        var attempt = 1
        while true {
            // Begun by its first read (newTransaction), or at the commit when the closure reads nothing.
            let transaction = Transaction(firestore: self, mode: .readWrite(retrying: previousID))
            do {
                let result: Result
                do {
                    result = try await updateBlock(transaction)
                } catch {
                    await transaction.rollBackIfBegun()
                    throw error
                }
                do {
                    try await transaction.commit()
                } catch let error as FirestoreError where error.code == .aborted {
                    // As the server SDKs do before a retry: release the attempt's locks in case the server
                    // still holds the transaction open (an error here means it is already closed).
                    await transaction.rollBackIfBegun()
                    throw error
                }
                return result
            } catch {
                guard attempt < maxAttempts, Self.isRetryableTransactionError(error) else { throw error }
                try await Task.sleep(
                    for: Self.transactionBackoff(afterAttempt: attempt, random: Double.random(in: 0...1)))
                attempt += 1
                previousID = transaction.id ?? previousID
            }
        }
    }

    /// Whether a transaction that failed with `error` should be run again: `ABORTED` (contention), or a
    /// transaction the server no longer knows (`INVALID_ARGUMENT` "Transaction is invalid or closed." on the
    /// emulator, "expired" / "no longer valid" in production).
    static func isRetryableTransactionError(_ error: any Error) -> Bool {
        guard let error = error as? FirestoreError else { return false }
        if error.code == .aborted { return true }
        guard error.code == .invalidArgument, error.httpStatus != nil else { return false }
        let message = error.message.lowercased()
        return message.contains("transaction is invalid or closed") || message.contains("transaction has expired")
            || message.contains("no longer valid")
    }

    /// The pause before the attempt after `attempt` (1-based): 100 ms × 2^(attempt-1), at most 5 s, scaled by
    /// 0.5 + `random` (`random` in 0...1, so ×0.5 to ×1.5).
    static func transactionBackoff(afterAttempt attempt: Int, random: Double) -> Duration {
        let base = 0.1 * Double(1 << min(max(attempt - 1, 0), 16))
        let seconds = min(base, 5.0) * (0.5 + min(max(random, 0), 1))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
