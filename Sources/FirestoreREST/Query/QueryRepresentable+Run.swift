extension QueryRepresentable {
    /// Runs the query once (runQuery) and returns its documents, every one reported as `.added`.
    /// - Throws: ``FirestoreError`` from ``Query/structuredQuery()`` before sending, or from the server or
    ///   transport.
    public func getDocuments() async throws -> QuerySnapshot {
        let query = self.query
        let response = try await query.firestore.runQuery(
            parent: try query.parentPath(), structuredQuery: try query.structuredQuery())
        let documents = response.documents.map { DocumentSnapshot(firestore: query.firestore, document: $0) }
        let changes = documents.enumerated().map { position, snapshot in
            DocumentChange(type: .added, document: snapshot, oldIndex: nil, newIndex: position)
        }
        return QuerySnapshot(query: query, documents: documents, documentChanges: changes,
                             readTime: response.readTime)
    }
}
