import FirestoreWire

extension Firestore {
    /// batchWrite: POST `/v1/{database}/documents:batchWrite` with the writes (or gRPC `BatchWrite`, as
    /// ``wireProtocol`` says), applied one by one and not atomically,
    /// possibly out of order (REST reference:
    /// https://cloud.google.com/firestore/docs/reference/rest/v1/projects.databases.documents/batchWrite). Most code
    /// wants ``BulkWriter``, which batches, throttles and retries.
    ///
    /// Two writes to one document in one request are refused whole by the server ("the same document cannot be
    /// written more than once in a single request"). The request is not idempotent: it is sent again only when it
    /// never reached the server (``RetryPolicy``).
    /// - Parameter writes: at most 500 writes, each to a different document.
    /// - Returns: each write's outcome, in order: its ``WriteResult`` or its own error (a `create` of an existing
    ///   document: `.alreadyExists`; an `update` of a missing one: `.notFound`).
    /// - Throws: ``FirestoreError`` for the whole request: the server's (e.g. `.invalidArgument` for a malformed write,
    ///   which fails every write of the request), the transport's, `.invalidArgument` before sending for a write that
    ///   cannot carry ``serverTimestampField``, or `.internal` for a malformed response (writes may have been applied).
    package func batchWrite(_ writes: [Write]) async throws -> BatchWriteResponse {
        let writes = try stampingServerTime(writes)
        return try await routed {
            try await batchWriteRPC(writes)
        } rest: {
            try await batchWriteREST(writes)
        }
    }

    /// batchWrite over REST, of writes already stamped (``batchWrite(_:)``).
    private func batchWriteREST(_ writes: [Write]) async throws -> BatchWriteResponse {
        let body: JSONValue = ["writes": .array(writes.map { $0.restJSON(database: database) })]
        let json = try await call("POST", database.documentsRoot + ":batchWrite", body: body)
        return try BatchWriteResponse(decoding: json, writeCount: writes.count)
    }
}
