import FirestoreWire

/// The results of an ``AggregateQuery``.
public struct AggregateQuerySnapshot: Sendable {
    /// The aggregate query this answers.
    public let query: AggregateQuery
    /// Each aggregation's result.
    public let values: [AggregateField: AggregateValue]
    /// The time the result is consistent at.
    public let readTime: Timestamp?
    /// Every result the server sent, by alias (``AggregateQuery/aliases``).
    let aggregateFields: [String: AggregateValue]

    /// The snapshot of `query` from its decoded response: each aggregation's result is the response's value under
    /// the aggregation's alias, so a response recorded with any aliases decodes against a query that names them.
    /// - Throws: ``FirestoreError`` `.internal` when the response lacks the alias of a requested aggregation.
    public init(query: AggregateQuery, response: RunAggregationQueryResponse) throws(FirestoreError) {
        var values: [AggregateField: AggregateValue] = [:]
        for (aggregation, alias) in zip(query.aggregations, query.aliases) {
            guard let value = response.aggregateFields[alias] else {
                throw FirestoreError(
                    code: .internal, message: "runAggregationQuery response lacks \(alias) (\(aggregation))")
            }
            values[aggregation] = value
        }
        self.query = query
        self.values = values
        self.readTime = response.readTime
        self.aggregateFields = response.aggregateFields
    }

    /// The result of `count()` (or the first `count(upTo:)`), when one was requested.
    public var count: Int64? {
        for aggregation in query.aggregations {
            if case .count = aggregation.kind, case .integer(let number)? = values[aggregation] { return number }
        }
        return nil
    }

    /// The result of `aggregation`, or `nil` when it was not requested.
    public func get(_ aggregation: AggregateField) -> AggregateValue? { values[aggregation] }

    /// The result stored under `alias` (the caller's, or `aggregate_<i>`), or `nil` when there is none.
    public func get(_ alias: String) -> AggregateValue? { aggregateFields[alias] }

    /// Every result by alias, as the Node SDK's `AggregateQuerySnapshot.data()`.
    public func data() -> [String: AggregateValue] { aggregateFields }
}
