import FirestoreREST

/// What a ``FeedCheckpointStore`` holds for one key: the last snapshot the feed's consumer finished with, and what
/// the feed resumes from. Read with ``FeedCheckpointStore/checkpoint(key:)``.
public struct FeedCheckpoint: Sendable, Hashable {
    /// The key.
    public let key: String
    /// The query it was written for: parent, canonical `StructuredQuery` JSON and limit kind.
    public let query: String
    /// The source of the feed that wrote it: `listen`, `keys`, `full` or `delta`.
    public let source: String
    /// Delta polling's tracking field, when ``source`` is `delta`.
    public let deltaField: String?
    /// The documents of the snapshot, sorted by name (byte for byte), each with its fields and times.
    public let documents: [Document]
    /// The snapshot's `readTime`.
    public let readTime: Timestamp?
    /// Delta polling: the next poll asks for documents whose tracking field is at or after this.
    public let deltaWatermark: Timestamp?
    /// Delta polling: the `readTime` of the last keys scan.
    public let lastKeysScan: Timestamp?
    /// A Listen feed: the resume token of the snapshot (`TargetChange.resume_token`), sent when the feed resumes
    /// within 30 minutes of ``readTime``.
    public let resumeToken: [UInt8]?
    /// When the checkpoint was written (this machine's clock).
    public let committedAt: Timestamp
    /// How many commits the key has seen.
    public let generation: Int64

    package init(
        key: String, query: String, source: String, deltaField: String?, documents: [Document], readTime: Timestamp?,
        deltaWatermark: Timestamp?, lastKeysScan: Timestamp?, resumeToken: [UInt8]?, committedAt: Timestamp,
        generation: Int64
    ) {
        self.key = key
        self.query = query
        self.source = source
        self.deltaField = deltaField
        self.documents = documents
        self.readTime = readTime
        self.deltaWatermark = deltaWatermark
        self.lastKeysScan = lastKeysScan
        self.resumeToken = resumeToken
        self.committedAt = committedAt
        self.generation = generation
    }
}

extension FeedSource {
    /// The tracking field of a delta-polling source, or `nil`.
    var deltaField: String? {
        guard case .poll(.delta(let field, _, _)) = self else { return nil }
        return field
    }
}
