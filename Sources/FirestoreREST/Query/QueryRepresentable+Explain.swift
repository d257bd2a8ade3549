import FirestoreWire

extension QueryRepresentable {
    /// Plans the query and, with `options.analyze`, runs it: one runQuery with `explainOptions`, over the client's protocol (REST reference:
    /// `RunQueryRequest.explain_options`, `RunQueryResponse.explain_metrics`; gRPC fields 10 and 11), as the Node SDK's
    /// `query.explain({analyze})` and the Python SDK's `get(explain_options=)`.
    ///
    /// ```swift
    /// let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red")
    ///     .explain(options: ExplainOptions(analyze: true))
    /// print(explained.metrics?.planSummary.indexesUsed ?? [])     // [["query_scope": "Collection", ...]]
    /// print(explained.metrics?.executionStats?.readOperations ?? 0, explained.snapshot?.count ?? 0)
    /// ```
    ///
    /// Production sends the metrics once, in the stream's last element. The Firestore emulator ignores
    /// `explainOptions`: it runs the query and answers with its plain results, so ``ExplainResults/metrics`` is
    /// `nil` and ``ExplainResults/snapshot`` holds the results whatever `analyze` says (`ExplainLiveTests`).
    /// - Parameter options: plan only (default) or plan and run.
    /// - Returns: the metrics (`nil` when the server sent none) and, when the query ran, its snapshot (every
    ///   document `.added`, as ``getDocuments()``).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid query, before sending; the server's or the
    ///   transport's error; `.internal` when the metrics or an element are malformed, or when a response without
    ///   metrics carries no `readTime`.
    public func explain(options: ExplainOptions = ExplainOptions()) async throws -> ExplainResults<QuerySnapshot> {
        let query = self.query
        var (response, metrics) = try await query.firestore.runExplainedQuery(
            parent: try query.parentPath(), structuredQuery: try query.structured(), options: options)
        if query.limitType == .last, query.limit != nil { response.documents.reverse() }
        let ran = options.analyze || metrics == nil
        return ExplainResults(metrics: metrics, snapshot: ran ? query.snapshot(of: response) : nil)
    }
}

extension Firestore {
    /// runQuery with `explainOptions`, over the client's protocol (``routed(grpc:rest:)``): REST POST
    /// `/v1/{parent}:runQuery` with `{"structuredQuery", "explainOptions"}`, or gRPC `RunQuery` with
    /// `explain_options` (``runExplainedQueryRPC(parent:structuredQuery:options:)``).
    /// - Throws: as ``runQuery(parent:structuredQuery:readTime:transaction:newTransaction:priority:)``, and as
    ///   ``decodeExplainedRunQuery(_:)``.
    package func runExplainedQuery(parent: ResourcePath, structuredQuery: StructuredQuery, options: ExplainOptions)
        async throws -> (RunQueryResponse, ExplainMetrics?)
    {
        try await routed {
            try await runExplainedQueryRPC(parent: parent, structuredQuery: structuredQuery, options: options)
        } rest: {
            try await runExplainedQueryREST(parent: parent, structuredQuery: structuredQuery, options: options)
        }
    }

    /// runQuery with `explainOptions` over REST.
    private func runExplainedQueryREST(parent: ResourcePath, structuredQuery: StructuredQuery, options: ExplainOptions)
        async throws -> (RunQueryResponse, ExplainMetrics?)
    {
        let body: JSONValue = ["structuredQuery": structuredQuery.restJSON, "explainOptions": options.restJSON]
        let (decoded, _) = try await callDecoding("POST", encodedName(of: parent) + ":runQuery", body: body) {
            (data) throws(FirestoreError) in
            guard !data.isEmpty else {
                throw FirestoreError(code: .internal, message: "runQuery response body is empty")
            }
            return try Self.decodeExplainedRunQuery(
                Self.parseBody(HTTPResponse(status: 200, body: data), what: "POST runQuery"))
        }
        return decoded
    }

    /// Decodes a runQuery response to a request with `explainOptions`: the documents and read time as
    /// ``decodeRunQuery(_:)-(JSONValue)``, and the `explainMetrics` of the element that carries them. A plan-only
    /// answer (metrics, no documents) need not carry a `readTime`.
    /// - Throws: ``FirestoreError`` for an error element; `.internal` naming the element for a malformed one or
    ///   malformed metrics, and for a response with neither metrics nor a `readTime`.
    package static func decodeExplainedRunQuery(_ json: JSONValue) throws(FirestoreError)
        -> (RunQueryResponse, ExplainMetrics?)
    {
        let elements = try streamElements(json, method: "runQuery")
        var result = RunQueryResponse(documents: [], readTime: nil, skippedResults: 0)
        for (position, element) in elements.enumerated() {
            try addRunQueryElement(element, position: position, to: &result)
        }
        let metrics = try ExplainMetrics.last(in: elements, method: "runQuery")
        if metrics == nil { result = try finishRunQuery(result) }
        return (result, metrics)
    }
}
