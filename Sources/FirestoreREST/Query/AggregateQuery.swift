/// Aggregations over a query, run with runAggregationQuery (REST reference:
/// `projects.databases.documents.runAggregationQuery`): `try await query.count.getAggregation().count` or
/// `try await query.aggregate([.count(), .sum("kcal"), .average("kcal")]).getAggregation()`.
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

    /// The REST `structuredAggregationQuery`; aggregation *i* has alias `aggregate_i`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid query (see ``Query/structuredQuery()``),
    ///   no aggregation, more than 5, or an invalid field path.
    package func structuredAggregationQuery() throws(FirestoreError) -> JSONValue {
        guard !aggregations.isEmpty else { throw .invalidArgument("an aggregate query needs an aggregation") }
        guard aggregations.count <= 5 else {
            throw .invalidArgument("an aggregate query takes at most 5 aggregations, got \(aggregations.count)")
        }
        var encoded: [JSONValue] = []
        for (index, aggregation) in aggregations.enumerated() {
            encoded.append(try aggregation.restJSON(alias: "aggregate_\(index)"))
        }
        return ["structuredQuery": try query.structuredQuery(), "aggregations": .array(encoded)]
    }

    /// Runs the aggregation: POST `/v1/{parent}:runAggregationQuery`.
    /// - Throws: ``FirestoreError`` from encoding before sending, from the server or transport, or
    ///   `.internal` when the response lacks a requested alias or holds a non-numeric value.
    public func getAggregation() async throws -> AggregateQuerySnapshot {
        let body: JSONValue = ["structuredAggregationQuery": try structuredAggregationQuery()]
        let firestore = query.firestore
        let json = try await firestore.call(
            "POST", firestore.encodedName(of: try query.parentPath()) + ":runAggregationQuery", body: body)
        return try decode(json)
    }

    func decode(_ json: JSONValue) throws(FirestoreError) -> AggregateQuerySnapshot {
        let elements = try Firestore.streamElements(json, method: "runAggregationQuery")
        var readTime: Timestamp?
        var fields: [String: JSONValue] = [:]
        for (position, element) in elements.enumerated() {
            try Firestore.noteReadTime(element, position: position, into: &readTime)
            if let members = element["result"]?["aggregateFields"]?.objectValue {
                fields.merge(members) { _, new in new }
            }
        }
        var values: [AggregateField: AggregateValue] = [:]
        for (index, aggregation) in aggregations.enumerated() {
            let alias = "aggregate_\(index)"
            guard let json = fields[alias] else {
                throw FirestoreError(
                    code: .internal, message: "runAggregationQuery response lacks \(alias) (\(aggregation))")
            }
            switch try FirestoreValue(restJSON: json, at: "aggregate \(aggregation)") {
            case .integer(let number): values[aggregation] = .integer(number)
            case .double(let number): values[aggregation] = .double(number)
            case .null: values[aggregation] = .null
            case let other:
                throw FirestoreError(code: .internal, message: "aggregate \(aggregation) is a \(other.typeName)")
            }
        }
        return AggregateQuerySnapshot(query: self, values: values, readTime: readTime)
    }
}

extension QueryRepresentable {
    /// The number of documents the query matches, as an aggregate query (`COUNT`).
    public var count: AggregateQuery { AggregateQuery(query: query, aggregations: [.count()]) }

    /// Several aggregations over the query in one request (at most 5).
    public func aggregate(_ aggregations: [AggregateField]) -> AggregateQuery {
        AggregateQuery(query: query, aggregations: aggregations)
    }
}
