import FirestoreWire

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
        try await runQuery(readTime: readTime, transaction: nil, newTransaction: nil, priority: priority)
    }

    /// ``runQuery(readTime:priority:)`` with one consistency selector of the REST request: a `readTime`, a
    /// `transaction` to read in, or a `newTransaction` to begin (its ID comes back as ``RunQueryResponse/transaction``).
    /// - Throws: as ``runQuery(readTime:priority:)``; `.invalidArgument` before sending when more than one is given.
    package func runQuery(
        readTime: Timestamp?, transaction: String?, newTransaction: TransactionMode?,
        priority: HTTPRequest.Priority = .normal
    ) async throws -> RunQueryResponse {
        let query = self.query
        var response = try await query.firestore.runQuery(
            parent: try query.parentPath(), structuredQuery: try query.structured(), readTime: readTime,
            transaction: transaction, newTransaction: newTransaction, priority: priority)
        if query.limitType == .last, query.limit != nil { response.documents.reverse() }
        return response
    }

    /// Runs the query once and returns its documents, every one reported as `.added`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid query, before sending; or the server's or
    ///   the transport's error.
    public func getDocuments() async throws -> QuerySnapshot {
        query.snapshot(of: try await runQuery())
    }

    /// Runs the query once as it matched at `readTime` (a point-in-time read: REST `RunQueryRequest.readTime`;
    /// the emulator honours it, `ReadOptionsLiveTests.queryAtAReadTimeSeesTheOldResult`). The snapshot's
    /// `readTime` is the one asked for.
    /// - Parameter readTime: a time within the last hour in production (the REST reference's rule; older PITR
    ///   reads need point-in-time recovery), or `nil` for now (then this is ``getDocuments()``).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid query, before sending; `.failedPrecondition`
    ///   from the server for a `readTime` too old ("The requested 'read_time' is too old." on the emulator);
    ///   otherwise the server's or the transport's error.
    public func getDocuments(readTime: Timestamp?) async throws -> QuerySnapshot {
        query.snapshot(of: try await runQuery(readTime: readTime))
    }
}

extension Query {
    /// The snapshot of a runQuery response: every document reported as `.added`, in order.
    func snapshot(of response: RunQueryResponse) -> QuerySnapshot {
        let documents = response.documents.map {
            DocumentSnapshot(firestore: firestore, document: $0, readTime: response.readTime)
        }
        let changes = documents.enumerated().map { position, snapshot in
            DocumentChange(type: .added, document: snapshot, oldIndex: nil, newIndex: position)
        }
        var snapshot = QuerySnapshot(
            query: self, documents: documents, documentChanges: changes, readTime: response.readTime)
        snapshot.skippedResults = response.skippedResults
        return snapshot
    }
}
