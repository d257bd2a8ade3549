import FirestoreREST

/// What a change feed attaches to each snapshot it publishes, beside the result itself.
package struct FeedSnapshotAttachment: Sendable {
    var statistics: PollStatistics?
    var resumePoint: FeedResumePoint?
}

extension QuerySnapshot {
    /// A snapshot of `query`'s result as a change feed publishes it: `documents` in query order,
    /// `documentChanges` since the listener's previous snapshot, consistent at `readTime`, and what producing it
    /// cost (`statistics`).
    public init(
        query: Query, documents: [DocumentSnapshot], documentChanges: [DocumentChange], readTime: Timestamp?,
        statistics: PollStatistics?
    ) {
        self.init(query: query, documents: documents, documentChanges: documentChanges, readTime: readTime)
        self.statistics = statistics
    }

    /// What the poll or Listen snapshot that produced this snapshot cost (``PollStatistics``), for a change
    /// feed's snapshots; `nil` for a one-off read (`getDocuments()`).
    public internal(set) var statistics: PollStatistics? {
        get { (feedAttachment as? FeedSnapshotAttachment)?.statistics }
        set { attachment { $0.statistics = newValue } }
    }

    /// What a change feed resumes from after this snapshot (delta watermark, Listen resume token), for durable
    /// checkpoints; `nil` for a one-off read.
    package var resumePoint: FeedResumePoint? {
        get { (feedAttachment as? FeedSnapshotAttachment)?.resumePoint }
        set { attachment { $0.resumePoint = newValue } }
    }

    private mutating func attachment(_ change: (inout FeedSnapshotAttachment) -> Void) {
        var attached = (feedAttachment as? FeedSnapshotAttachment) ?? FeedSnapshotAttachment()
        change(&attached)
        feedAttachment = attached
    }
}
