import FirestoreWire

/// The result of a query at one moment.
///
/// A value: its parts are kept in one shared, immutable box, so handing a snapshot to 1,000 listeners copies one
/// reference each (O(1) per copy), not every part.
public struct QuerySnapshot: Sendable {
    private final class Storage: Sendable {
        let query: Query
        let documents: [DocumentSnapshot]
        let documentChanges: [DocumentChange]
        let readTime: Timestamp?
        let feedAttachment: (any Sendable)?
        let skippedResults: Int

        init(
            query: Query, documents: [DocumentSnapshot], documentChanges: [DocumentChange], readTime: Timestamp?,
            feedAttachment: (any Sendable)?, skippedResults: Int
        ) {
            self.query = query
            self.documents = documents
            self.documentChanges = documentChanges
            self.readTime = readTime
            self.feedAttachment = feedAttachment
            self.skippedResults = skippedResults
        }

        /// This box with `feedAttachment` and `skippedResults` replaced.
        func with(feedAttachment: (any Sendable)?, skippedResults: Int) -> Storage {
            Storage(
                query: query, documents: documents, documentChanges: documentChanges, readTime: readTime,
                feedAttachment: feedAttachment, skippedResults: skippedResults)
        }
    }

    private var storage: Storage

    /// The query this is a result of.
    public var query: Query { storage.query }
    /// The documents, in query order.
    public var documents: [DocumentSnapshot] { storage.documents }
    /// The changes since the previous snapshot of the same listener; for a one-off read or a listener's
    /// first snapshot, every document as `.added`.
    public var documentChanges: [DocumentChange] { storage.documentChanges }
    /// The time the result is consistent at (the server's `readTime`).
    public var readTime: Timestamp? { storage.readTime }
    /// What a change feed attaches to the snapshots it publishes (FirestoreFeed's `statistics` and resume point,
    /// kept there with the rest of the feed's vocabulary); `nil` for a one-off read.
    package var feedAttachment: (any Sendable)? {
        get { storage.feedAttachment }
        set { storage = storage.with(feedAttachment: newValue, skippedResults: storage.skippedResults) }
    }
    /// How many documents the query's ``Query/offset`` skipped (the sum of the response's `skippedResults`,
    /// REST `RunQueryResponse.skipped_results`): fewer than the offset when fewer documents matched. 0 without an
    /// offset, and for a change feed's snapshots.
    public internal(set) var skippedResults: Int {
        get { storage.skippedResults }
        set { storage = storage.with(feedAttachment: storage.feedAttachment, skippedResults: newValue) }
    }

    /// A snapshot of `query`'s result: `documents` in query order, `documentChanges` since the previous snapshot,
    /// consistent at `readTime`.
    public init(
        query: Query, documents: [DocumentSnapshot], documentChanges: [DocumentChange], readTime: Timestamp?
    ) {
        storage = Storage(
            query: query, documents: documents, documentChanges: documentChanges, readTime: readTime,
            feedAttachment: nil, skippedResults: 0)
    }

    /// The number of documents.
    public var count: Int { documents.count }
    /// Whether there are no documents.
    public var isEmpty: Bool { documents.isEmpty }
}
