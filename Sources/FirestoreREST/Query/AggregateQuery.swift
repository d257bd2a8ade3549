import FirestoreWire

/// Aggregations over a query, run with runAggregationQuery (REST reference:
/// `projects.databases.documents.runAggregationQuery`): `try await query.count.getAggregation().count` or
/// `try await query.aggregate([.count(), .sum("kcal", alias: "total"), .average("kcal")]).getAggregation()`.
public struct AggregateQuery: Sendable {
    /// The query aggregated over.
    public let query: Query
    /// The aggregations, duplicates removed, in the order given.
    public let aggregations: [AggregateField]

    init(query: Query, aggregations: [AggregateField]) {
        self.query = query
        var seen: Set<AggregateField> = []
        self.aggregations = aggregations.filter { seen.insert($0).inserted }
    }

    /// The alias each aggregation's result is stored under, in order: the caller's ``AggregateField/alias``, or
    /// `aggregate_<i>` for aggregation *i* without one.
    public var aliases: [String] {
        aggregations.enumerated().map { index, aggregation in aggregation.alias ?? "aggregate_\(index)" }
    }

    /// The REST `structuredAggregationQuery`, every aggregation under its alias (``aliases``).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid query (see ``Query/structuredQuery()``),
    ///   no aggregation, more than 5, an invalid field path, an invalid alias, or an alias used twice (the
    ///   server's rule: "Aggregation aliases contain duplicate alias").
    package func structuredAggregationQuery() throws(FirestoreError) -> JSONValue {
        try structuredAggregation().restJSON
    }

    /// The wire model of this aggregation (``StructuredAggregationQuery``), every aggregation under its alias.
    /// - Throws: as ``structuredAggregationQuery()``.
    package func structuredAggregation() throws(FirestoreError) -> StructuredAggregationQuery {
        guard !aggregations.isEmpty else { throw .invalidArgument("an aggregate query needs an aggregation") }
        guard aggregations.count <= 5 else {
            throw .invalidArgument("an aggregate query takes at most 5 aggregations, got \(aggregations.count)")
        }
        var resolved: [StructuredAggregationQuery.Aggregation] = []
        var used: Set<String> = []
        for (aggregation, alias) in zip(aggregations, aliases) {
            if aggregation.alias != nil { try AggregateField.checkAlias(alias) }
            guard used.insert(alias).inserted else {
                throw .invalidArgument("aggregation alias \"\(alias)\" is used twice (\(aggregation))")
            }
            resolved.append(try aggregation.resolved(alias: alias))
        }
        return StructuredAggregationQuery(query: try query.structured(), aggregations: resolved)
    }

    /// Runs the aggregation: POST `/v1/{parent}:runAggregationQuery`.
    /// - Throws: ``FirestoreError`` from encoding before sending, from the server or transport, or
    ///   `.internal` when the response lacks a requested alias or holds a non-numeric value.
    public func getAggregation() async throws -> AggregateQuerySnapshot {
        try AggregateQuerySnapshot(query: self, response: try await run(readTime: nil, transaction: nil))
    }

    /// Runs the aggregation over the documents as they were at `readTime` (REST
    /// `RunAggregationQueryRequest.readTime`), or now for `nil`.
    /// - Throws: as ``getAggregation()``; `.failedPrecondition` from the server for a `readTime` too old.
    public func getAggregation(readTime: Timestamp?) async throws -> AggregateQuerySnapshot {
        try AggregateQuerySnapshot(query: self, response: try await run(readTime: readTime, transaction: nil))
    }

    /// Sends the runAggregationQuery request with at most one consistency selector and decodes the stream.
    /// - Throws: as ``getAggregation()``; `.invalidArgument` when more than one selector is given.
    func run(readTime: Timestamp?, transaction: String?, newTransaction: TransactionMode? = nil) async throws
        -> RunAggregationQueryResponse
    {
        let aggregation = try structuredAggregation()
        let firestore = query.firestore
        let parent = try query.parentPath()
        return try await firestore.routed {
            try await firestore.runAggregationQueryRPC(
                parent: parent, structuredAggregationQuery: aggregation, readTime: readTime, transaction: transaction,
                newTransaction: newTransaction
            ).response
        } rest: {
            var body: [String: JSONValue] = ["structuredAggregationQuery": aggregation.restJSON]
            try Firestore.addConsistency(
                readTime: readTime, transaction: transaction, newTransaction: newTransaction, to: &body)
            let json = try await firestore.call(
                "POST", firestore.encodedName(of: parent) + ":runAggregationQuery", body: .object(body))
            return try RunAggregationQueryResponse(decoding: json)
        }
    }
}

extension QueryRepresentable {
    /// The number of documents the query matches, as an aggregate query (`COUNT`).
    public var count: AggregateQuery { AggregateQuery(query: query, aggregations: [.count()]) }

    /// Several aggregations over the query in one request (at most 5), each under its alias.
    public func aggregate(_ aggregations: [AggregateField]) -> AggregateQuery {
        AggregateQuery(query: query, aggregations: aggregations)
    }
}
