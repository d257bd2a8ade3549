import Foundation

/// One HTTP request as the client hands it to a transport.
///
/// `url` is absolute (`http://127.0.0.1:8080/v1/projects/p/databases/(default)/documents/c/d`), already
/// percent-encoded. `body` is the raw request body (JSON for every Firestore method) or `nil`.
public struct HTTPRequest: Sendable, Hashable {
    /// HTTP method: `GET`, `POST`, `PATCH` or `DELETE`.
    public var method: String
    /// Absolute, percent-encoded URL including the query string.
    public var url: String
    /// Header fields in order; names are case-insensitive.
    public var headers: [HTTPHeader]
    /// Request body bytes, or `nil` for none.
    public var body: Data?
    /// Whether sending this request twice has the same effect as sending it once (RFC 9110 §9.2.2). A
    /// transport may resend an idempotent request by itself (say after a kept-alive connection turned out to
    /// be closed), but never one that is not: a commit whose response was lost may already be applied, so
    /// only the caller may decide to send it again.
    public var isIdempotent: Bool

    /// - Parameter isIdempotent: `nil` means what the method says: `GET`, `HEAD`, `PUT`, `DELETE` and
    ///   `OPTIONS` are idempotent, `POST` and `PATCH` are not. ``Firestore`` always passes its own verdict,
    ///   the one that decides its retries: `true` for reads (GET, and the runQuery, batchGet,
    ///   runAggregationQuery and listCollectionIds POSTs that begin no transaction), `false` for the rest.
    public init(method: String, url: String, headers: [HTTPHeader] = [], body: Data? = nil, isIdempotent: Bool? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.isIdempotent = isIdempotent
            ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method.uppercased())
    }
}

/// One header field. Names compare case-insensitively through ``HTTPHeader/matches(_:)``.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether this header's name equals `name`, ignoring ASCII case.
    public func matches(_ name: String) -> Bool {
        self.name.lowercased() == name.lowercased()
    }
}

/// One HTTP response: status, header fields and the body exactly as received (already decompressed).
public struct HTTPResponse: Sendable, Hashable {
    /// HTTP status code, e.g. 200 or 404.
    public var status: Int
    /// Header fields in the order received.
    public var headers: [HTTPHeader]
    /// The body bytes.
    public var body: Data

    public init(status: Int, headers: [HTTPHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { $0.matches(name) }?.value
    }
}

/// Sends HTTP requests. The client never talks to the network except through this protocol, so a test or
/// an offline demo can swap in an in-memory or replaying transport.
///
/// A transport returns every HTTP response it receives, whatever its status (4xx and 5xx included); it
/// throws only when no response arrived: a ``FirestoreError`` with code `.unavailable` (connection refused,
/// DNS failure, reset), `.deadlineExceeded` (timeout) or `.cancelled` (the calling task was cancelled).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the complete response.
    /// - Throws: ``FirestoreError`` when no HTTP response was received.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
