import FirestoreWire

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
    /// closure again after the Node.js server SDK's transaction back-off (`ExponentialBackoff` in
    /// `googleapis/nodejs-firestore` `dev/src/backoff.ts`, used by `runTransaction` in `dev/src/transaction.ts`):
    /// 1 s before the first retry, growing ×1.5 per attempt to at most 60 s, each spread by a random ×0.5–1.5, so
    /// contenders that lost together do not come back together; up to `maxAttempts` attempts in
    /// all. The pauses run on ``retryPolicy``'s clock. So `updateBlock` may run several times: keep side effects
    /// out of it.
    ///
    /// Transactions of this client that read or write the same document take turns: a read or commit waits until
    /// the other attempt that holds one of its documents has committed or rolled back (unless that would wait in a
    /// cycle, and at most 60 s). The server's locks would make them wait too, but two transactions that both read
    /// a document and then both commit wait for each other there until the lock timeout aborts them. Other clients
    /// and processes contend on the server, and retry as described.
    ///
    /// The commit and the rollback that end an attempt go out with ``HTTPRequest/Priority/high``: on a
    /// ``CurlTransport`` they never wait for a connection behind the requests of other transactions of this client,
    /// which the server may keep waiting for the locks this one holds (`TransactionLiveTests`: 20 tasks × 10
    /// increments of one counter on one client with 8 connections all commit).
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
        try await runTransaction(options: .readWrite(maxAttempts: maxAttempts), isolation: isolation, updateBlock)
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

    /// The pause before the attempt after `attempt` (1-based), with the Node.js SDK's transaction back-off
    /// settings (`ExponentialBackoff` in `googleapis/nodejs-firestore` `dev/src/backoff.ts`:
    /// `DEFAULT_BACKOFF_INITIAL_DELAY_MS` 1000, `DEFAULT_BACKOFF_FACTOR` 1.5, `DEFAULT_BACKOFF_MAX_DELAY_MS`
    /// 60,000, jitter factor 1.0): a base of 1 s × 1.5^(attempt − 1), at most 60 s, scaled by 0.5 + `random`
    /// (`random` in 0...1, so ×0.5 to ×1.5), rounded to the millisecond. The initial delay is the base of the first
    /// retry, as that file documents it; its code starts from 0, an immediate first retry, which on the emulator
    /// sends every loser of a lock timeout back at once (10 × 10 contended increments: 41 of 100 committed, against
    /// 100 of 100 with the pause).
    static func transactionBackoff(afterAttempt attempt: Int, random: Double) -> Duration {
        var base = 1.0
        for _ in 0..<min(max(attempt - 1, 0), 64) { base = min(base * 1.5, 60) }
        let seconds = base * (0.5 + min(max(random, 0), 1))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
