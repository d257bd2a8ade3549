import FirestoreREST

/// One snapshot's changes as a ``FeedSink`` applies them, with the feed's resume point and the fencing token.
public struct FeedSinkBatch: Sendable {
    /// One change of a batch.
    public enum Change: Sendable, Hashable {
        /// The document (new or changed) with its fields and times; applied only when its `updateTime` is newer than
        /// what the sink holds for its name.
        case put(Document)
        /// The document left the query's result (deleted, or no longer matching) by the batch's read time.
        case remove(name: String)
    }

    /// The changes, in the snapshot's order.
    public var changes: [Change]
    /// The snapshot's read time: what a removal's tombstone and each applied row record.
    public var readTime: Timestamp?
    /// The Listen target's resume token at the snapshot, or `nil`.
    public var resumeToken: [UInt8]?
    /// The shard (0 for a plain feed).
    public var shard: Int
    /// The fencing token: the generation of the lease the snapshot was delivered under (0 for a plain feed).
    public var generation: Int64
    /// The query of the snapshot (its parent, canonical `StructuredQuery` JSON and limit kind), stored with the
    /// resume point, or `nil`.
    public var query: String?
    /// A page of a backfill: the full resource name of the page's last document (the load goes on after it, at
    /// ``readTime``), stored with the resume point; `nil` for a snapshot of the feed and for the batch that ends a
    /// load (``FeedSinkResumePoint/loadCursor``).
    public var loadCursor: String?

    public init(
        changes: [Change], readTime: Timestamp?, resumeToken: [UInt8]?, shard: Int = 0, generation: Int64 = 0,
        query: String? = nil, loadCursor: String? = nil
    ) {
        self.changes = changes
        self.readTime = readTime
        self.resumeToken = resumeToken
        self.shard = shard
        self.generation = generation
        self.query = query
        self.loadCursor = loadCursor
    }

    /// The batch of `snapshot`'s changes, its read time, resume token and query, for `shard` at `generation`.
    public init(_ snapshot: QuerySnapshot, shard: Int = 0, generation: Int64 = 0) {
        self.init(
            changes: snapshot.documentChanges.compactMap { change in
                guard let document = change.document.document else { return nil }
                return change.type == .removed ? .remove(name: document.name) : .put(document)
            },
            readTime: snapshot.readTime, resumeToken: snapshot.resumePoint?.resumeToken, shard: shard,
            generation: generation, query: try? QueryIdentity(snapshot.query).description)
    }

    /// The resume point the batch stores.
    public var resumePoint: FeedSinkResumePoint {
        FeedSinkResumePoint(
            resumeToken: resumeToken, readTime: readTime, generation: generation, query: query, loadCursor: loadCursor)
    }
}
