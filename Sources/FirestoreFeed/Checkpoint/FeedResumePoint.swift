import FirestoreREST

/// Where a change feed resumes from one of its snapshots, beyond the snapshot's documents and `readTime`: what a
/// durable checkpoint stores with it (``FeedCheckpointStore``). Set on the snapshots a feed
/// publishes; `nil` for a one-off read.
package struct FeedResumePoint: Sendable, Hashable {
    /// Delta polling: the next poll asks for documents whose tracking field is at or after this.
    package var deltaWatermark: Timestamp?
    /// Delta polling: the `readTime` of the last keys scan.
    package var lastKeysScan: Timestamp?
    /// A Listen snapshot: the target's resume token at the snapshot point (`TargetChange.resume_token`).
    package var resumeToken: [UInt8]?

    package init(deltaWatermark: Timestamp? = nil, lastKeysScan: Timestamp? = nil, resumeToken: [UInt8]? = nil) {
        self.deltaWatermark = deltaWatermark
        self.lastKeysScan = lastKeysScan
        self.resumeToken = resumeToken
    }
}
