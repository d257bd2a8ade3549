import FirestoreWire

/// What a committed transaction returned: the closure's result and the server's result for each write.
public struct TransactionResult<Value> {
    /// The result of the closure's attempt that committed.
    public let value: Value
    /// One ``WriteResult`` per write the committing attempt buffered, in order (as the Python server SDK's
    /// `Transaction._commit()` returns them); empty when it wrote nothing.
    public let writeResults: [WriteResult]
    /// When the committing attempt's commit was applied (REST `CommitResponse.commit_time`): the one time all
    /// its writes took effect. `nil` for a read-only transaction, which never commits, and for a commit without
    /// writes when the server sent no time.
    public let commitTime: Timestamp?
}

extension TransactionResult: Sendable where Value: Sendable {}

extension Firestore {
    /// ``runTransaction(maxAttempts:isolation:_:)`` that also returns the commit's ``WriteResult``s, so the
    /// values that `serverTimestamp()` and `increment` produced inside the transaction are known without a read.
    ///
    /// ```swift
    /// let outcome = try await db.runTransactionWithWriteResults { transaction in
    ///     try transaction.updateData(["n": .increment(Int64(1))], forDocument: db.document("counters/visits"))
    /// }
    /// outcome.writeResults[0].transformResults   // [.integer(43)]
    /// ```
    /// - Parameters: as ``runTransaction(maxAttempts:isolation:_:)``.
    /// - Returns: the closure's result and the write results of the attempt that committed.
    /// - Throws: as ``runTransaction(maxAttempts:isolation:_:)``.
    public func runTransactionWithWriteResults<Value>(
        maxAttempts: Int = 5, isolation: isolated (any Actor)? = #isolation,
        _ updateBlock: (Transaction) async throws -> Value
    ) async throws -> TransactionResult<Value> {
        var committing: Transaction?
        let value = try await runTransaction(maxAttempts: maxAttempts, isolation: isolation) { transaction in
            committing = transaction
            return try await updateBlock(transaction)
        }
        guard let commit = committing?.committedResponse else {
            throw FirestoreError(code: .internal, message: "the transaction committed without write results")
        }
        return TransactionResult(value: value, writeResults: commit.writeResults, commitTime: commit.commitTime)
    }
}
