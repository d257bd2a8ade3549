/// How a document changed between two snapshots of a query.
public enum DocumentChangeType: String, Sendable, Hashable {
    case added, modified, removed
}

/// One change between two snapshots of a query, with the SDKs' index semantics (`firestore-rest.md` §3.3,
/// conformance `listen-*.json`): removals first, then additions, then modifications, each in query order;
/// the indexes refer to the working list as the changes are applied one by one.
public struct DocumentChange: Sendable, Hashable {
    /// What happened.
    public let type: DocumentChangeType
    /// The document after the change; for `.removed`, its last known state.
    public let document: DocumentSnapshot
    /// Position before the change, `nil` for `.added`.
    public let oldIndex: Int?
    /// Position after the change, `nil` for `.removed`.
    public let newIndex: Int?

    public init(type: DocumentChangeType, document: DocumentSnapshot, oldIndex: Int?, newIndex: Int?) {
        self.type = type
        self.document = document
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }
}

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
    /// What the poll that produced this snapshot cost, for a change feed's snapshots; `nil` for a one-off read.
    public let statistics: PollStatistics?

    public init(query: Query, documents: [DocumentSnapshot], documentChanges: [DocumentChange], readTime: Timestamp?,
                statistics: PollStatistics? = nil) {
        self.query = query
        self.documents = documents
        self.documentChanges = documentChanges
        self.readTime = readTime
        self.statistics = statistics
    }

    /// The number of documents.
    public var count: Int { documents.count }
    /// Whether there are no documents.
    public var isEmpty: Bool { documents.isEmpty }
}
