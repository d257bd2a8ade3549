import FirestoreREST

/// What makes two listeners share one Listen target: the same query (``QueryIdentity``). A target resumed from a
/// durable checkpoint is its feed's alone (``checkpoint``: its view starts from that checkpoint's documents).
struct WatchTargetKey: Hashable, Sendable {
    let query: QueryIdentity
    /// The store and key of the checkpoint a target resumed from, or `nil` for a target any listener shares.
    let checkpoint: String?

    /// The key of `query` (of a target resumed from `checkpoint`).
    /// - Throws: `FirestoreError` `.invalidArgument` when the query cannot be encoded, or when its projection leaves
    ///   out a field it orders by: a Listen view places each document by its own fields, so such a feed would deliver
    ///   documents out of the query's order (the feed then ends before anything is sent).
    init(_ query: Query, checkpoint: String? = nil) throws(FirestoreError) {
        if let field = DeltaRequests.projectionLeavesOutAnOrder(query) {
            throw .invalidArgument(
                "a Listen feed of \(query.collectionID) cannot keep the query's order: its projection leaves out "
                    + "\(field), which the query orders by; add \(field) to select(fields:), or poll with "
                    + ".poll(.full), which keeps the server's order")
        }
        self.query = try QueryIdentity(query)
        self.checkpoint = checkpoint
    }
}
