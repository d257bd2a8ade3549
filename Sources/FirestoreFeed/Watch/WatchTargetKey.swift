import FirestoreREST

/// What makes two listeners share one Listen target: the same query (``QueryIdentity``). A target resumed from a
/// durable checkpoint is its feed's alone (``checkpoint``: its view starts from that checkpoint's documents).
struct WatchTargetKey: Hashable, Sendable {
    let query: QueryIdentity
    /// The store and key of the checkpoint a target resumed from, or `nil` for a target any listener shares.
    let checkpoint: String?

    /// The key of `query` (of a target resumed from `checkpoint`).
    /// - Throws: `FirestoreError` `.invalidArgument` when the query cannot be encoded (the feed then ends before
    ///   anything is sent).
    init(_ query: Query, checkpoint: String? = nil) throws(FirestoreError) {
        self.query = try QueryIdentity(query)
        self.checkpoint = checkpoint
    }
}
