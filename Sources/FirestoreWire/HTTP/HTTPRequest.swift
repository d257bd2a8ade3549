#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// How urgently the request needs a connection when the transport has too few free ones
    /// (``HTTPRequest/Priority``); ``Priority/normal`` unless given.
    public var priority: Priority

    /// A request from its parts.
    /// - Parameters:
    ///   - method: the HTTP method, e.g. `POST`.
    ///   - url: the absolute URL.
    ///   - headers: header fields in order.
    ///   - body: the body bytes, or `nil` for none.
    ///   - isIdempotent: `nil` means what the method says: `GET`, `HEAD`, `PUT`, `DELETE` and
    ///     `OPTIONS` are idempotent, `POST` and `PATCH` are not. ``Firestore`` always passes its own verdict,
    ///     the one that decides its retries: `true` for reads (GET, and the runQuery, batchGet,
    ///     runAggregationQuery and listCollectionIds POSTs that begin no transaction), `false` for the rest.
    ///   - priority: how urgently the request needs a connection (``HTTPRequest/Priority``).
    public init(
        method: String, url: String, headers: [HTTPHeader] = [], body: Data? = nil, isIdempotent: Bool? = nil,
        priority: Priority = .normal
    ) {
        self.method = method
        self.priority = priority
        self.url = url
        self.headers = headers
        self.body = body
        self.isIdempotent =
            isIdempotent
            ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method.uppercased())
    }
}
