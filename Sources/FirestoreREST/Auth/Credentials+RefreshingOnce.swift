import FirestoreWire

extension Credentials {
    /// Runs `attempt`, and once more when the server refused the `Authorization` value it sent (a REST `401`, a gRPC
    /// `UNAUTHENTICATED`) and these credentials can fetch a new token (``invalidate(refusedHeader:)`` returns
    /// `true`): a token revoked or expired early costs one more request, not the call. Not a retry: at most one
    /// refresh per call, whatever `attempt` reports the second time.
    ///
    /// The one loop of the package's clients (`Firestore`'s REST requests; `PubSubPublisher`'s REST requests and
    /// gRPC publishes).
    /// - Parameter attempt: sends the request once, with a header it fetches itself (``authorizationHeader()``);
    ///   returns its result and the `Authorization` value the server refused, or `nil` when it refused none.
    /// - Returns: the result of the last attempt.
    /// - Throws: what `attempt` throws.
    package func refreshingOnce<Result>(
        _ attempt: () async throws -> (result: Result, refused: String?)
    ) async throws -> Result {
        var refreshed = false
        while true {
            let (result, refused) = try await attempt()
            guard let refused, !refreshed, await invalidate(refusedHeader: refused) else { return result }
            refreshed = true
        }
    }
}
