import FirestoreWire

/// The result of a ``VectorQuery``: the nearest documents, nearest first (the SDKs' `VectorQuerySnapshot`).
public struct VectorQuerySnapshot: Sendable {
    /// The vector query this is a result of.
    public let query: VectorQuery
    /// The documents, nearest first (for ``DistanceMeasure/dotProduct``, the largest product first). Each holds
    /// its distance in ``VectorQuery/distanceResultField`` when one was asked for.
    public let documents: [DocumentSnapshot]
    /// The time the result is consistent at (the server's `readTime`).
    public let readTime: Timestamp?

    /// A snapshot of these documents.
    public init(query: VectorQuery, documents: [DocumentSnapshot], readTime: Timestamp?) {
        self.query = query
        self.documents = documents
        self.readTime = readTime
    }

    /// The number of documents.
    public var count: Int { documents.count }
    /// Whether there are no documents.
    public var isEmpty: Bool { documents.isEmpty }

    /// The documents decoded into `type`; see ``QuerySnapshot/documents(as:decoder:strategy:)``.
    /// - Throws: with `.raise`, the first ``DocumentDecodingFailure``.
    /// - Complexity: O(n) in the total size of the documents.
    public func documents<T: Decodable>(
        as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder(), strategy: DecodingFailureStrategy = .raise
    ) throws -> DecodedDocuments<T> {
        try DecodedDocuments(decoding: documents, as: type, decoder: decoder, strategy: strategy)
    }
}
