import FirestoreWire

extension Firestore {
    /// RunQuery with `explain_options` over gRPC: the request of
    /// ``runQueryRPC(parent:structuredQuery:readTime:transaction:newTransaction:priority:)`` with
    /// `ExplainOptions explain_options = 10` (`bool analyze = 1`, `google/firestore/v1/query_profile.proto`), and its
    /// documents and read time decoded as there, plus `ExplainMetrics explain_metrics = 11` of the message that
    /// carries them (``ExplainMetrics/init(reading:)``). A plan-only answer (metrics, no documents) need not carry a
    /// read time, as over REST (``decodeExplainedRunQuery(_:)``).
    /// - Throws: ``FirestoreError`` as the REST call; `.dataLoss` for a message that does not decode; `.internal`
    ///   for an answer with neither metrics nor a read time.
    func runExplainedQueryRPC(parent: ResourcePath, structuredQuery: StructuredQuery, options: ExplainOptions)
        async throws -> (RunQueryResponse, ExplainMetrics?)
    {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.resourceName(of: parent))
        try writer.writeMessageField(2) { (query) throws(FirestoreError) in
            try structuredQuery.write(to: &query)
        }
        options.write(field: 10, to: &writer)
        let (decoded, bytes) = try await performRPC(
            FirestoreGRPCMethod.runQuery, request: writer.bytes, idempotent: true,
            initial: (RunQueryResponse(documents: [], readTime: nil, skippedResults: 0), ExplainMetrics?.none)
        ) { (result, message) throws(FirestoreError) in
            try Self.addExplainedRunQueryMessage(message, to: &result.0, metrics: &result.1)
        }
        var (response, metrics) = decoded
        if metrics == nil { response = try Self.finishRunQuery(response) }
        response.responseBytes = bytes
        return (response, metrics)
    }

    /// Adds one `RunQueryResponse` message of an explained query: as ``addRunQueryMessage(_:to:)``, and its
    /// `explain_metrics = 11` when it has them.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    static func addExplainedRunQueryMessage(
        _ message: [UInt8], to result: inout RunQueryResponse, metrics: inout ExplainMetrics?
    ) throws(FirestoreError) {
        try addRunQueryMessage(message, to: &result)
        if let found = try ExplainMetrics.read(field: 11, of: message, message: "RunQueryResponse") { metrics = found }
    }
}
