/// The results of an ``AggregateQuery``.
public struct AggregateQuerySnapshot: Sendable {
    /// The aggregate query this answers.
    public let query: AggregateQuery
    /// Each aggregation's result.
    public let values: [AggregateField: AggregateValue]
    /// The time the result is consistent at.
    public let readTime: Timestamp?

    /// The result of `count()` (or the first `count(upTo:)`), when one was requested.
    public var count: Int64? {
        for aggregation in query.aggregations {
            if case .count = aggregation.kind, case .integer(let number)? = values[aggregation] { return number }
        }
        return nil
    }

    /// The result of `aggregation`, or `nil` when it was not requested.
    public func get(_ aggregation: AggregateField) -> AggregateValue? { values[aggregation] }
}
