/// The result of a query at one moment.
public struct QuerySnapshot: Sendable {
    /// The query this is a result of.
    public let query: Query
    /// The documents, in query order.
    public let documents: [DocumentSnapshot]
    /// The changes since the previous snapshot of the same listener; for a one-off read or a listener's
    /// first snapshot, every document as `.added`.
    public let documentChanges: [DocumentChange]
    /// The time the result is consistent at (the server's `readTime`).
    public let readTime: Timestamp?
    /// What a change feed attaches to the snapshots it publishes (FirestoreFeed's `statistics` and resume point,
    /// kept there with the rest of the feed's vocabulary); `nil` for a one-off read.
    package var feedAttachment: (any Sendable)?
    /// How many documents the query's ``Query/offset`` skipped (the sum of the response's `skippedResults`,
    /// REST `RunQueryResponse.skipped_results`): fewer than the offset when fewer documents matched. 0 without an
    /// offset, and for a change feed's snapshots.
    public internal(set) var skippedResults: Int = 0

    /// A snapshot of `query`'s result: `documents` in query order, `documentChanges` since the previous snapshot,
    /// consistent at `readTime`.
    public init(
        query: Query, documents: [DocumentSnapshot], documentChanges: [DocumentChange], readTime: Timestamp?
    ) {
        self.query = query
        self.documents = documents
        self.documentChanges = documentChanges
        self.readTime = readTime
    }

    /// The number of documents.
    public var count: Int { documents.count }
    /// Whether there are no documents.
    public var isEmpty: Bool { documents.isEmpty }
}
