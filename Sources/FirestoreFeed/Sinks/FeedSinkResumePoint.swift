import FirestoreREST

/// Where a feed resumes, as a ``FeedSink`` stores it for one shard in the transaction of each batch.
public struct FeedSinkResumePoint: Sendable, Hashable {
    /// The Listen target's resume token at the last batch applied (`TargetChange.resume_token`), or `nil`.
    public var resumeToken: [UInt8]?
    /// The read time of the last batch applied.
    public var readTime: Timestamp?
    /// The generation (fencing token) of the last batch applied: the sink refuses a lower one for the shard.
    public var generation: Int64
    /// The query the feed was mirroring (its parent, canonical `StructuredQuery` JSON and limit kind), or `nil` when
    /// the batch did not say: a feed of another query must not resume from this point (its resume token is another
    /// target's, and the sink's documents another result).
    public var query: String?
    /// While a backfill is in progress (`QueryRepresentable.mirror(into:pageSize:policy:onEvent:)`), the full
    /// resource name of the last document of the last page loaded, every page read at ``readTime``: the load goes on
    /// after it, at the same read time. `nil` once the load is complete (and for a feed that never loaded).
    public var loadCursor: String?

    public init(
        resumeToken: [UInt8]?, readTime: Timestamp?, generation: Int64, query: String? = nil,
        loadCursor: String? = nil
    ) {
        self.resumeToken = resumeToken
        self.readTime = readTime
        self.generation = generation
        self.query = query
        self.loadCursor = loadCursor
    }
}
