import FirestoreWire

extension AggregateQuery {
    /// Plans the aggregation and, with `options.analyze`, runs it: one runAggregationQuery with `explainOptions`,
    /// over the client's protocol (REST reference: `RunAggregationQueryRequest.explain_options`,
    /// `RunAggregationQueryResponse.explain_metrics`; gRPC fields 8 and 10 of `google/firestore/v1/firestore.proto`),
    /// as the Node SDK's `aggregateQuery.explain({analyze})` and the Python SDK's
    /// `aggregation_query.get(explain_options=)`.
    ///
    /// ```swift
    /// let explained = try await db.collection("fruits").whereField("color", isEqualTo: "red").count
    ///     .explain(options: ExplainOptions(analyze: true))
    /// print(explained.metrics?.planSummary.indexesUsed ?? [])     // [["query_scope": "Collection", ...]]
    /// print(explained.metrics?.executionStats?.readOperations ?? 0, explained.snapshot?.count ?? 0)
    /// ```
    ///
    /// Production sends the metrics once, in the stream's last element; a plan-only answer has no `result` and
    /// need not carry a `readTime`. The Firestore emulator ignores `explainOptions`: it runs the aggregation and
    /// answers with its plain result, so ``ExplainResults/metrics`` is `nil` and ``ExplainResults/snapshot`` holds
    /// the result whatever `analyze` says (`ExplainLiveTests`).
    /// - Parameter options: plan only (default) or plan and run.
    /// - Returns: the metrics (`nil` when the server sent none) and, when the aggregation ran (`analyze`, or no
    ///   metrics), its snapshot, as ``getAggregation()`` gives it.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid aggregation, before sending (see
    ///   ``getAggregation()``); the server's or the transport's error; `.internal` when the metrics or an element
    ///   are malformed, or when a result that ran lacks a requested alias.
    public func explain(options: ExplainOptions = ExplainOptions()) async throws
        -> ExplainResults<AggregateQuerySnapshot>
    {
        let (response, metrics) = try await query.firestore.runExplainedAggregationQuery(
            parent: try query.parentPath(), structuredAggregationQuery: try structuredAggregation(),
            options: options)
        let ran = options.analyze || metrics == nil
        return ExplainResults(
            metrics: metrics, snapshot: ran ? try AggregateQuerySnapshot(query: self, response: response) : nil)
    }
}

extension Firestore {
    /// runAggregationQuery with `explainOptions`, over the client's protocol (``routed(grpc:rest:)``): REST POST
    /// `/v1/{parent}:runAggregationQuery` with `{"structuredAggregationQuery", "explainOptions"}`, or gRPC
    /// `RunAggregationQuery` with `explain_options`
    /// (``runExplainedAggregationQueryRPC(parent:structuredAggregationQuery:options:)``).
    /// - Throws: as ``AggregateQuery/getAggregation()``, and as ``decodeExplainedRunAggregationQuery(_:)``.
    package func runExplainedAggregationQuery(
        parent: ResourcePath, structuredAggregationQuery: StructuredAggregationQuery, options: ExplainOptions
    ) async throws -> (RunAggregationQueryResponse, ExplainMetrics?) {
        try await routed {
            try await runExplainedAggregationQueryRPC(
                parent: parent, structuredAggregationQuery: structuredAggregationQuery, options: options)
        } rest: {
            let body: JSONValue = [
                "structuredAggregationQuery": structuredAggregationQuery.restJSON, "explainOptions": options.restJSON,
            ]
            return try Self.decodeExplainedRunAggregationQuery(
                try await call("POST", encodedName(of: parent) + ":runAggregationQuery", body: body))
        }
    }

    /// Decodes a runAggregationQuery response to a request with `explainOptions`: the results and read time as
    /// ``RunAggregationQueryResponse/init(decoding:)-(JSONValue)``, and the `explainMetrics` of the element that
    /// carries them (``ExplainMetrics/last(in:method:)``). A plan-only answer (metrics, no `result`) need not
    /// carry a `readTime`.
    /// - Throws: ``FirestoreError`` for an error element; `.internal` naming the element for a malformed one or
    ///   malformed metrics.
    package static func decodeExplainedRunAggregationQuery(_ json: JSONValue) throws(FirestoreError)
        -> (RunAggregationQueryResponse, ExplainMetrics?)
    {
        let response = try RunAggregationQueryResponse(decoding: json)
        let elements = try streamElements(json, method: "runAggregationQuery")
        return (response, try ExplainMetrics.last(in: elements, method: "runAggregationQuery"))
    }
}
