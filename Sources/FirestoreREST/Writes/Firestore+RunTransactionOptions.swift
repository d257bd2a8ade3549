import FirestoreWire

extension Firestore {
    /// Runs `updateBlock` in a transaction of the kind `options` names: read-write (commits the buffered writes
    /// atomically and retries an attempt that lost a conflict, as ``runTransaction(maxAttempts:isolation:_:)``) or
    /// read-only (Node `runTransaction(fn, {readOnly: true, readTime})`, Python `transaction(read_only=True)`).
    ///
    /// ```swift
    /// let (a, b) = try await db.runTransaction(options: .readOnly()) { transaction in
    ///     let a = try await transaction.getDocument(db.document("accounts/a"))
    ///     let b = try await transaction.getDocument(db.document("accounts/b"))
    ///     return (a, b)                                    // one point in time, whatever writes go on
    /// }
    /// ```
    ///
    /// A read-only transaction is begun with `TransactionOptions.readOnly` (and its `readTime` when given) by its
    /// first read, or by `beginTransaction` before the closure with ``TransactionOptions/Begin/beforeFirstRead``;
    /// all its reads see the same point in time and lock nothing. It makes one attempt, never commits, cannot
    /// write (a write throws `invalid-argument` at once), and is rolled back only when it was begun before the
    /// closure and the closure threw (Python's `@transactional`; the Node SDK leaves a read-only transaction to
    /// expire).
    ///
    /// With ``TransactionOptions/Begin/beforeFirstRead`` each attempt begins with `beginTransaction` (naming the
    /// aborted attempt in `retryTransaction` for a read-write retry), so the closure's first read carries the
    /// transaction ID; a closure that throws rolls the transaction back, as Python's `@transactional` does.
    ///
    /// - Parameters:
    ///   - options: read-write or read-only, attempts, and when to begin (``TransactionOptions``).
    ///   - isolation: the caller's actor, on which the closure runs (filled in by the compiler).
    ///   - updateBlock: reads with the transaction (then, read-write only, buffers writes); its result is
    ///     returned after a successful commit, or at once for a read-only transaction.
    /// - Returns: the result of the attempt that committed (read-write) or ran (read-only).
    /// - Throws: the closure's own error (after the rollback described above); ``FirestoreError``
    ///   `.invalidArgument` for `maxAttempts < 1` or a write in a read-only transaction, `.failedPrecondition`
    ///   from the server for a `readTime` too old; for read-write, the last retryable error when every attempt
    ///   failed; any other error of beginTransaction, a read or the commit; `CancellationError` when the task is
    ///   cancelled during a backoff.
    public func runTransaction<Result>(
        options: TransactionOptions, isolation: isolated (any Actor)? = #isolation,
        _ updateBlock: (Transaction) async throws -> Result
    ) async throws -> Result {
        guard options.maxAttempts >= 1 else {
            throw FirestoreError.invalidArgument("runTransaction needs maxAttempts >= 1, not \(options.maxAttempts)")
        }
        let maxAttempts = options.readOnly ? 1 : options.maxAttempts
        var previousID: String?
        var attempt = 1
        while true {
            let mode = options.mode(retrying: previousID)
            var transaction: Transaction?
            do {
                let current = try await beginAttempt(mode, begin: options.begin)
                transaction = current
                let owner = ObjectIdentifier(current)
                defer { transactionLocks.release(owner) }
                let result = try await runAttempt(current, options: options, isolation: isolation, updateBlock)
                return result
            } catch {
                guard attempt < maxAttempts, Self.isRetryableTransactionError(error) else { throw error }
                let delay = Self.transactionBackoff(afterAttempt: attempt, random: Double.random(in: 0...1))
                if delay > .zero { try await retryPolicy.clock.sleep(for: delay) }
                try Task.checkCancellation()
                attempt += 1
                previousID = transaction?.id ?? previousID
            }
        }
    }

    /// The transaction of one attempt: begun here with `beginTransaction` for
    /// ``TransactionOptions/Begin/beforeFirstRead``, else left to its first read (or its commit).
    private func beginAttempt(_ mode: TransactionMode, begin: TransactionOptions.Begin) async throws -> Transaction {
        switch begin {
        case .withFirstRead:
            return Transaction(firestore: self, mode: mode)
        case .beforeFirstRead:
            return Transaction(firestore: self, mode: mode, id: try await beginTransaction(mode))
        }
    }

    /// Runs the closure once in `transaction`, then commits (read-write) or ends it (read-only); rolls back as
    /// ``runTransaction(options:isolation:_:)`` says when the closure or the commit fails.
    private func runAttempt<Result>(
        _ transaction: Transaction, options: TransactionOptions, isolation: isolated (any Actor)? = #isolation,
        _ updateBlock: (Transaction) async throws -> Result
    ) async throws -> Result {
        let result: Result
        do {
            result = try await updateBlock(transaction)
        } catch {
            if options.readOnly, options.begin == .withFirstRead {
                _ = transaction.finish()  // as the Node SDK: a read-only transaction is left to expire
            } else {
                await transaction.rollBackIfBegun()
            }
            throw error
        }
        if options.readOnly {
            _ = transaction.finish()
            return result
        }
        do {
            try await transaction.commit()
        } catch let error as FirestoreError where error.code == .aborted {
            // As the server SDKs do before a retry: release the attempt's locks in case the server still holds
            // the transaction open (an error here means it is already closed).
            await transaction.rollBackIfBegun()
            throw error
        }
        return result
    }
}
