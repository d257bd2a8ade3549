#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends HTTP requests. The client never talks to the network except through this protocol, so a test or
/// an offline demo can swap in an in-memory or replaying transport.
///
/// A transport returns every HTTP response it receives, whatever its status (4xx and 5xx included); it
/// throws only when no response arrived: a ``FirestoreError`` with code `.unavailable` (connection refused,
/// DNS failure, reset), `.deadlineExceeded` (timeout) or `.cancelled` (the calling task was cancelled).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the complete response.
    /// - Throws: ``FirestoreError`` when no HTTP response was received.
    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse
}
