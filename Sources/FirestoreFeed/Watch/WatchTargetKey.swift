import FirestoreREST

/// What makes two listeners share one Listen target: the same parent, the same canonical `StructuredQuery`
/// (its REST JSON, members sorted) and the same limit kind (`limit(toLast:)` is sent with its orders reversed and
/// published in the query's own order).
struct WatchTargetKey: Hashable, Sendable {
    let parent: String
    let structuredQuery: String
    let limitToLast: Bool

    /// The key of `query`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when the query cannot be encoded (the feed then ends before
    ///   anything is sent).
    init(_ query: Query) throws(FirestoreError) {
        parent = try query.parentPath().description
        structuredQuery = try query.structuredQuery().serializedString()
        limitToLast = query.limitType == .last
    }
}
