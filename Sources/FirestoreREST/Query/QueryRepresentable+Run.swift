extension QueryRepresentable {
    /// Runs the query once (runQuery) and returns its documents in the query's order: for
    /// `limit(toLast:)` the rows of the flipped request are reversed back.
    /// - Parameters:
    ///   - readTime: read as of this time (within the last 270 seconds), or now.
    ///   - priority: how urgently the request needs a connection (``HTTPRequest/Priority``).
    /// - Throws: ``FirestoreError`` from ``Query/structuredQuery()`` before sending, or from the server or
    ///   transport.
    package func runQuery(readTime: Timestamp? = nil, priority: HTTPRequest.Priority = .normal) async throws
        -> RunQueryResponse
    {
        let query = self.query
        var response = try await query.firestore.runQuery(
            parent: try query.parentPath(), structuredQuery: try query.structuredQuery(), readTime: readTime,
            priority: priority)
        if query.limitType == .last, query.limit != nil { response.documents.reverse() }
        return response
    }

    /// Runs the query once and returns its documents, every one reported as `.added`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid query, before sending; or the server's or
    ///   the transport's error.
    public func getDocuments() async throws -> QuerySnapshot {
        let query = self.query
        let response = try await runQuery()
        let documents = response.documents.map { DocumentSnapshot(firestore: query.firestore, document: $0) }
        let changes = documents.enumerated().map { position, snapshot in
            DocumentChange(type: .added, document: snapshot, oldIndex: nil, newIndex: position)
        }
        return QuerySnapshot(
            query: query, documents: documents, documentChanges: changes,
            readTime: response.readTime)
    }
}
