/// How a request ended without an HTTP response, as the transport saw it: kept on ``FirestoreError`` (package
/// access) so that a recording can store the failure and a replay can raise the same error
/// (`FirestoreTesting`'s `Cassette.Failure`).
package enum TransportFailure: String, Sendable, Hashable, CaseIterable {
    /// The request timed out (`connectTimeout` or `requestTimeout`): `.deadlineExceeded`.
    case timeout
    /// The transfer stayed below `lowSpeedLimit` for `lowSpeedTime`: `.deadlineExceeded`.
    case stalled
    /// The connection was reset or closed before a whole response arrived (send or receive failed, or the
    /// server closed without answering): `.unavailable`.
    case reset
    /// The connection could not be made (refused, unreachable): `.unavailable`, nothing was sent.
    case refused
    /// The host (or proxy) name could not be resolved: `.unavailable`, nothing was sent.
    case unresolved
    /// The response ended before its announced length: `.unavailable`.
    case truncated

    /// Whether the request certainly never reached the server.
    package var requestWasNotSent: Bool { self == .refused || self == .unresolved }
}
