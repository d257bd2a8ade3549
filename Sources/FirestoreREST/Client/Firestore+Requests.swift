import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Firestore {
    /// The URL of `resource` (a resource name below `/v1/`, already percent-encoded) with query parameters.
    func url(_ resource: String, query: [(String, String)] = []) -> String {
        var text = baseURL + resource
        if !query.isEmpty {
            text +=
                "?"
                + query.map { ResourcePath.percentEncode($0.0) + "=" + ResourcePath.percentEncode($0.1) }
                .joined(separator: "&")
        }
        return text
    }

    /// The encoded resource name of a path of this database: `projects/p/databases/(default)/documents/a%20b`.
    func encodedName(of path: ResourcePath) -> String {
        path.segments.isEmpty ? database.documentsRoot : database.documentsRoot + "/" + path.urlEncoded
    }

    /// Sends one request and returns the parsed JSON body of a 2xx response.
    ///
    /// Authorization, the one refresh after a `401` and the retries of ``retryPolicy`` happen in
    /// ``perform(_:what:idempotent:)``.
    ///
    /// - Parameters:
    ///   - method: `GET`, `POST`, `PATCH` or `DELETE`.
    ///   - resource: the percent-encoded part after `/v1/`, e.g. `projects/p/databases/(default)/documents:commit`.
    ///   - query: query parameters, encoded here.
    ///   - body: the JSON body, or `nil`.
    ///   - idempotent: whether sending the request twice is harmless, so it may be retried after an unclear
    ///     failure; `nil` decides by ``isIdempotent(method:resource:body:)``.
    ///   - priority: how urgently the request needs a connection (``HTTPRequest/Priority``).
    /// - Throws: ``FirestoreError``: the server's error for a non-2xx status (any of the three body forms, with
    ///   ``FirestoreError/retryAfter`` from a `Retry-After` header), the transport's error when no response
    ///   arrived, `.internal` naming the byte offset when a 2xx body is not JSON.
    func call(
        _ method: String, _ resource: String, query: [(String, String)] = [], body: JSONValue? = nil,
        idempotent: Bool? = nil, priority: HTTPRequest.Priority = .normal
    ) async throws -> JSONValue {
        try await callMeasured(
            method, resource, query: query, body: body, idempotent: idempotent, priority: priority
        ).json
    }

    /// ``call(_:_:query:body:idempotent:priority:)`` that also reports the size of the response body in bytes (after
    /// decompression), for callers that report what a read moved (a change feed's statistics).
    func callMeasured(
        _ method: String, _ resource: String, query: [(String, String)] = [], body: JSONValue? = nil,
        idempotent: Bool? = nil, priority: HTTPRequest.Priority = .normal
    ) async throws -> (json: JSONValue, bytes: Int) {
        let request = jsonRequest(
            method, resource, query: query, body: body, idempotent: idempotent, priority: priority)
        return try await perform(request, what: "\(method) \(resource)", idempotent: request.isIdempotent)
    }

    /// ``callMeasured(_:_:query:body:idempotent:priority:)`` with the 2xx body decoded by `decode` from its bytes
    /// (e.g. a streaming decoder) instead of parsed into one JSON tree first.
    func callDecoding<Decoded>(
        _ method: String, _ resource: String, query: [(String, String)] = [], body: JSONValue? = nil,
        idempotent: Bool? = nil, priority: HTTPRequest.Priority = .normal,
        decode: (Data) throws(FirestoreError) -> Decoded
    ) async throws -> (value: Decoded, bytes: Int) {
        let request = jsonRequest(
            method, resource, query: query, body: body, idempotent: idempotent, priority: priority)
        return try await perform(
            request, what: "\(method) \(resource)", idempotent: request.isIdempotent, decode: decode)
    }

    /// The request of a JSON call: `Accept` (and with a body `Content-Type`) `application/json`, marked idempotent
    /// as `idempotent` says or, when `nil`, as ``isIdempotent(method:resource:body:)`` decides (which also tells the
    /// transport whether it may resend the request by itself).
    private func jsonRequest(
        _ method: String, _ resource: String, query: [(String, String)], body: JSONValue?, idempotent: Bool?,
        priority: HTTPRequest.Priority
    ) -> HTTPRequest {
        var headers: [HTTPHeader] = [HTTPHeader("Accept", "application/json")]
        if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        return HTTPRequest(
            method: method, url: url(resource, query: query), headers: headers, body: body?.serialized(),
            isIdempotent: idempotent ?? Self.isIdempotent(method: method, resource: resource, body: body),
            priority: priority)
    }
}
