import FirestoreREST

/// Everything a poller knows between two polls, in one value a durable checkpoint can store and a poller can
/// resume from: the last applied result, the time it is consistent at, and what delta polling builds on.
package struct PollState: Sendable, Hashable {
    /// The documents of the last applied poll, in query order, each the version at ``readTime``.
    package var documents: [Document]
    /// The time ``documents`` are consistent at, or `nil` before the first poll.
    package var readTime: Timestamp?
    /// Delta mode: the next poll asks for documents whose tracking field is at or after this (the last
    /// `readTime` minus the margin); `nil` until a delta-mode poll has run.
    package var deltaWatermark: Timestamp?
    /// Delta mode: the `readTime` of the last keys scan that replaced the documents (a first poll, a fallback or
    /// a reconciling scan), from which the next reconciling scan is due.
    package var lastKeysScan: Timestamp?

    /// The state before any poll.
    package init(
        documents: [Document] = [], readTime: Timestamp? = nil, deltaWatermark: Timestamp? = nil,
        lastKeysScan: Timestamp? = nil
    ) {
        self.documents = documents
        self.readTime = readTime
        self.deltaWatermark = deltaWatermark
        self.lastKeysScan = lastKeysScan
    }

    /// What a checkpoint stores beside the documents and `readTime`: the delta watermark and last keys scan.
    package var resumePoint: FeedResumePoint {
        FeedResumePoint(deltaWatermark: deltaWatermark, lastKeysScan: lastKeysScan)
    }

    /// ``documents`` by byte-exact name. O(n).
    package var byName: [ByteExactName: Document] { PollFetcher.index(documents) }
}
