import FirestoreWire

/// One failed attempt of a call, as ``Firestore/withRetries(method:cancelled:_:)`` weighs it.
struct FailedAttempt: Error {
    /// The attempt's error, redacted.
    var error: FirestoreError
    /// Whether sending again is safe: the call is idempotent, or nothing reached the server.
    var mayRetry: Bool
    /// The wait the server asked for (`Retry-After`), if it asked.
    var serverDelay: Duration?
}

extension Firestore {
    /// The one retry loop of both wires: REST (``perform(_:what:idempotent:decode:)``) and gRPC
    /// (``performRPC(_:request:idempotent:priority:initial:add:)``) run their attempts through it.
    ///
    /// An attempt that throws ``FailedAttempt`` is tried again after ``retryPolicy``'s back-off when it may be sent
    /// again (``FailedAttempt/mayRetry``), its code is retryable (``RetryPolicy/isRetryable(_:)``), the error is not
    /// one that is never retried (``FirestoreError/isNeverRetried``: a response over the size cap) nor a server
    /// without HTTP/2, and attempts are left (``RetryPolicy/maxAttempts``); each retry counts
    /// `firestore_retries_total` and logs at debug level.
    /// - Parameters:
    ///   - method: the method's name as REST spells it (`runQuery`), for metrics and logs.
    ///   - cancelled: the `.cancelled` error thrown when the task is cancelled during a back-off wait.
    ///   - attempt: one attempt, given its number (1 for the first).
    /// - Throws: the last attempt's ``FailedAttempt/error``; `.cancelled` when the task is cancelled during a back-off
    ///   wait; any other error `attempt` throws, as it is.
    func withRetries<Value>(
        method: String, cancelled: @autoclosure () -> FirestoreError,
        _ attempt: (_ number: Int) async throws -> Value
    ) async throws -> Value {
        var retry = 0
        while true {
            let failure: FailedAttempt
            do {
                return try await attempt(retry + 1)
            } catch let failed as FailedAttempt {
                failure = failed
            }
            retry += 1
            let error = failure.error
            guard failure.mayRetry, retryPolicy.isRetryable(error), !error.isNeverRetried, !error.lacksHTTP2,
                retry < retryPolicy.maxAttempts,
                let delay = retryPolicy.delay(
                    beforeRetry: retry, serverDelay: failure.serverDelay, randomUnit: Double.random(in: 0..<1))
            else {
                throw error
            }
            observability.count("firestore_retries_total", [("method", method)])
            observability.log(
                .debug, "retrying \(method) in \(delay) after \(error.code)",
                metadata: logMetadata.merging(["firestore.method": method, "firestore.attempt": "\(retry)"]) { $1 })
            do {
                try await retryPolicy.clock.sleep(for: delay)
            } catch {
                throw cancelled()
            }
        }
    }
}
