import FirestoreREST

/// The retry table written out (`FirestoreError.Code.retryRule`), one row per canonical code: whether the client
/// sends a failed idempotent request again, whether a change feed retries, and whether the credentials are renewed
/// first. `ErrorRetryTableTests` (the client) and `FeedErrorRetryTableTests` (the feed) check every row.
package enum ExpectedRetryTable {
    package struct Row: Sendable, CustomStringConvertible {
        package let code: FirestoreError.Code
        package let retriesRequest: Bool
        package let feedRetries: Bool
        package let renewsCredentials: Bool
        package var description: String { code.name }
    }

    package static let rows: [Row] = [
        Row(code: .cancelled, retriesRequest: false, feedRetries: true, renewsCredentials: false),
        Row(code: .unknown, retriesRequest: true, feedRetries: true, renewsCredentials: false),
        Row(code: .invalidArgument, retriesRequest: false, feedRetries: false, renewsCredentials: false),
        Row(code: .deadlineExceeded, retriesRequest: true, feedRetries: true, renewsCredentials: false),
        Row(code: .notFound, retriesRequest: false, feedRetries: false, renewsCredentials: false),
        Row(code: .alreadyExists, retriesRequest: false, feedRetries: false, renewsCredentials: false),
        Row(code: .permissionDenied, retriesRequest: false, feedRetries: false, renewsCredentials: false),
        Row(code: .resourceExhausted, retriesRequest: true, feedRetries: true, renewsCredentials: false),
        Row(code: .failedPrecondition, retriesRequest: false, feedRetries: false, renewsCredentials: false),
        Row(code: .aborted, retriesRequest: false, feedRetries: true, renewsCredentials: false),
        Row(code: .outOfRange, retriesRequest: false, feedRetries: false, renewsCredentials: false),
        Row(code: .unimplemented, retriesRequest: false, feedRetries: false, renewsCredentials: false),
        Row(code: .internal, retriesRequest: true, feedRetries: true, renewsCredentials: false),
        Row(code: .unavailable, retriesRequest: true, feedRetries: true, renewsCredentials: false),
        Row(code: .dataLoss, retriesRequest: false, feedRetries: false, renewsCredentials: false),
        Row(code: .unauthenticated, retriesRequest: false, feedRetries: false, renewsCredentials: true),
    ]

    /// An HTTP error body naming `code`: `{"error":{"code":400,"message":"row <name>","status":"<CODE>"}}`.
    package static func body(_ code: FirestoreError.Code) -> String {
        #"{"error":{"code":400,"message":"row \#(code.name)","status":"\#(code.rawValue)"}}"#
    }
}
