import FirestoreWire

extension Firestore {
    /// Sends one request that no builder makes, through this client's credentials, retries and transport, and
    /// returns the decoded response: the escape hatch the server SDKs keep in their generated low-level clients
    /// (Node `v1.FirestoreClient`, Python `firestore_v1.services.firestore.FirestoreClient`). For example a REST
    /// `PATCH` with an update mask (`projects.databases.documents.patch`), `createDocument`, or a commit of a
    /// transform-only write:
    ///
    /// ```swift
    /// let document = try await db.rawRequest(
    ///     "POST", "\(db.database.documentsRoot)/fruits", queryItems: [("documentId", "fig")],
    ///     body: ["fields": ["kcal": ["integerValue": "74"]]])
    /// print(document["name"] ?? .null)   // "projects/p/databases/(default)/documents/fruits/fig"
    /// ```
    ///
    /// The request is `METHOD {baseURL}{resource}?{queryItems}` with `Accept: application/json` and, with a body,
    /// `Content-Type: application/json`; the `Authorization` header comes from ``credentials`` (one refresh after a
    /// `401`). It is retried per ``retryPolicy`` when `idempotent` (by default: a `GET`, or a `POST` of `:runQuery`,
    /// `:batchGet`, `:runAggregationQuery` or `:listCollectionIds` that begins no transaction) or when it never
    /// reached the server; a write is sent once.
    /// - Parameters:
    ///   - method: `GET`, `POST`, `PATCH` or `DELETE` (any case).
    ///   - resource: the part of the URL after `/v1/`, percent-encoded (``ResourcePath/urlEncoded``,
    ///     ``ResourcePath/percentEncode(_:)``), e.g. `projects/p/databases/(default)/documents/fruits/apple` or
    ///     `projects/p/databases/(default)/documents:commit` (``DatabaseID/documentsRoot`` is its start).
    ///   - queryItems: query parameters, percent-encoded here, in order (`("updateMask.fieldPaths", "kcal")` may
    ///     repeat).
    ///   - body: the JSON body (REST `Value` objects for fields), or `nil` for none.
    ///   - idempotent: whether sending the request twice is harmless, so it may be retried after an unclear
    ///     failure; `nil` decides as described above.
    /// - Returns: the response body as JSON (`{}` for an empty one); a streamed method's response (runQuery,
    ///   batchGet) is its JSON array of elements.
    /// - Throws: ``FirestoreError``: `.invalidArgument` before sending for another method, or a resource that is
    ///   empty, starts with `/`, or holds `?`, `#`, a space or a control character; the server's error for a non-2xx
    ///   status (e.g. `.notFound`, `.alreadyExists`, `.invalidArgument` naming a bad field), decoded as for every
    ///   other call; the transport's error; `.internal` when a 2xx body is not JSON.
    /// - Complexity: one request (more when retried), plus O(n) to parse an n-byte response.
    public func rawRequest(
        _ method: String, _ resource: String, queryItems: [(String, String)] = [], body: JSONValue? = nil,
        idempotent: Bool? = nil
    ) async throws -> JSONValue {
        let verb = method.uppercased()
        guard ["GET", "POST", "PATCH", "DELETE"].contains(verb) else {
            throw FirestoreError.invalidArgument("rawRequest takes GET, POST, PATCH or DELETE, not \"\(method)\"")
        }
        guard !resource.isEmpty, !resource.hasPrefix("/"),
            !resource.unicodeScalars.contains(where: { $0.value <= 0x20 || $0 == "?" || $0 == "#" || $0.value == 0x7F })
        else {
            throw FirestoreError.invalidArgument(
                "rawRequest needs a percent-encoded resource after /v1/ without a query, not \"\(resource)\"")
        }
        return try await call(verb, resource, query: queryItems, body: body, idempotent: idempotent)
    }
}
