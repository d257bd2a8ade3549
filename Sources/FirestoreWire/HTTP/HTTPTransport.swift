#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends HTTP requests. The client never talks to the network except through this protocol, so a test or
/// an offline demo can swap in an in-memory or replaying transport.
///
/// **A transport of your own means REST and polling.** Only ``CurlTransport`` (and FirestoreTesting's
/// `RecordingTransport` and `ReplayTransport`, which record or replay through one) carry gRPC calls and the Listen
/// stream. A client on any other transport sends every call over REST: `FirestoreProtocol.automatic` keeps to
/// REST, and `FirestoreProtocol.grpc` fails each call with `.failedPrecondition`. Its change feeds with
/// `source: .listen` poll instead, in keys mode, from the first snapshot on (`FeedEvent.fellBackToPolling` says
/// so), with the latency and billed reads of polling.
///
/// A transport returns every HTTP response it receives, whatever its status (4xx and 5xx included); it
/// throws only when no response arrived: a ``FirestoreError`` with code `.unavailable` (connection refused,
/// DNS failure, reset), `.deadlineExceeded` (timeout) or `.cancelled` (the calling task was cancelled).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the complete response.
    /// - Throws: ``FirestoreError`` when no HTTP response was received.
    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse
}
