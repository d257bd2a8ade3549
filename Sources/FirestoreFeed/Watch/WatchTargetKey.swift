import FirestoreREST

/// What makes two listeners share one Listen target: the same parent, the same canonical `StructuredQuery`
/// (its REST JSON, members sorted) and the same limit kind (`limit(toLast:)` is sent with its orders reversed and
/// published in the query's own order). A target resumed from a durable checkpoint is its feed's alone
/// (``checkpoint``: its view starts from that checkpoint's documents).
struct WatchTargetKey: Hashable, Sendable {
    let parent: String
    let structuredQuery: String
    let limitToLast: Bool
    /// The store and key of the checkpoint a target resumed from, or `nil` for a target any listener shares.
    let checkpoint: String?

    /// The key of `query` (of a target resumed from `checkpoint`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` when the query cannot be encoded (the feed then ends before
    ///   anything is sent).
    init(_ query: Query, checkpoint: String? = nil) throws(FirestoreError) {
        parent = try query.parentPath().description
        structuredQuery = try query.structuredQuery().serializedString()
        limitToLast = query.limitType == .last
        self.checkpoint = checkpoint
    }
}
