import FirestoreREST

/// How many documents a query's result shows, and from which end of its ordering: what a Listen target and a delta
/// poll both cut their ordered documents to.
package enum DocumentLimit: Sendable, Hashable {
    /// `limit(to:)`: the first `n` in query order.
    case first(Int)
    /// `limit(toLast:)`: the last `n` in query order.
    case last(Int)

    /// `query`'s limit, or `nil` when it has none.
    package init?(_ query: Query) {
        guard let limit = query.limit else { return nil }
        self = query.limitType == .last ? .last(limit) : .first(limit)
    }
}
