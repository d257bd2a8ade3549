import FirestoreREST

/// How a feed resumes from a checkpoint: what its upstream starts from, and the first snapshot it delivers.
package enum CheckpointResume {
    /// How long after its snapshot a Listen resume token is sent: Firestore bills a listener that was disconnected
    /// for more than 30 minutes as a new query (https://firebase.google.com/docs/firestore/pricing#listens), so
    /// an older token would save nothing.
    package static let listenResumeWindow = Duration.seconds(30 * 60)

    /// The resume token to send for `checkpoint` at `now`: its token when `source` is a Listen feed, the
    /// checkpoint was written by one, and its snapshot's `readTime` is less than 30 minutes before `now`.
    package static func resumeToken(of checkpoint: FeedCheckpoint, for source: FeedSource, now: Timestamp)
        -> [UInt8]?
    {
        guard source == .listen, checkpoint.source == "listen", let token = checkpoint.resumeToken, !token.isEmpty,
            let readTime = checkpoint.readTime, now.duration(since: readTime) < listenResumeWindow
        else { return nil }
        return token
    }

    /// The state a poller in `mode` resumes from: the stored documents in query order and their `readTime`; for
    /// delta polling on the field the checkpoint was written with, the watermark (never later than `readTime`
    /// minus the current margin) and the last keys scan, so the first poll is a delta poll.
    /// - Complexity: O(n log n) for n documents.
    static func pollState(from checkpoint: FeedCheckpoint, query: Query, mode: PollMode) -> PollState {
        var state = PollState(
            documents: orderedDocuments(checkpoint, query: query), readTime: checkpoint.readTime)
        if case .delta(let field, let margin, _) = mode, checkpoint.source == "delta", checkpoint.deltaField == field,
            let readTime = checkpoint.readTime, let watermark = checkpoint.deltaWatermark,
            let lastKeysScan = checkpoint.lastKeysScan
        {
            state.deltaWatermark = min(watermark, readTime.subtracting(max(margin, .zero)))
            state.lastKeysScan = lastKeysScan
        }
        return state
    }

    /// The view a Listen target resumes from with `resumeToken`: the stored documents (the published list, in
    /// query order) and the token; not yet published, so the first snapshot point publishes even when nothing
    /// changed. Only with a token: a target listened to from scratch is sent the current result, never the
    /// deletions since the checkpoint, so it must not hold stored documents.
    /// - Complexity: O(n log n) for n documents.
    package static func listenView(
        from checkpoint: FeedCheckpoint, query: Query, resumeToken: [UInt8]
    ) -> WatchTargetState {
        listenView(from: checkpoint, query: query, resumePoint: .resumeToken(resumeToken))
    }

    /// The view a Listen target resumes from at `resumePoint`: as ``listenView(from:query:resumeToken:)``, or, with
    /// `.readTime(T)`, sent `read_time` T (a mirror's backfill read the checkpoint's documents at T), so the server
    /// sends the changes after T (`ListenReadTimeResumeLiveTests`).
    /// - Complexity: O(n log n) for n documents.
    package static func listenView(
        from checkpoint: FeedCheckpoint, query: Query, resumePoint: ListenTarget.ResumePoint
    ) -> WatchTargetState {
        var view = WatchTargetState(ordering: DocumentOrdering(query: query), limit: DocumentLimit(query))
        let ordered = orderedDocuments(checkpoint, query: query)
        view.documents = PollFetcher.index(ordered)
        view.ordered = ordered
        view.published = ordered
        switch resumePoint {
        case .resumeToken(let token): view.resumeToken = token
        case .readTime(let time): view.resumeReadTime = time
        }
        view.readTime = checkpoint.readTime
        return view
    }

    /// The stored documents in `query`'s order (``DocumentOrdering``).
    static func orderedDocuments(_ checkpoint: FeedCheckpoint, query: Query) -> [Document] {
        let ordering = DocumentOrdering(query: query)
        return checkpoint.documents.sorted { ordering.compare($0, $1) < 0 }
    }

    /// The first snapshot after a restart: `first`'s documents with the changes from the stored documents to them
    /// (``DocumentChangeComputation/checkedChanges(from:to:ordering:)``, indexes relative to the stored list in
    /// query order); a mismatch with the server's order goes to `mismatch`. A Listen snapshot is billed as Firestore
    /// bills a resumed listener: the documents delivered when the resume token was sent, else the whole result
    /// (`BilledReads.listenResumed(documentsDelivered:resultSize:sentResumeToken:)`).
    /// - Complexity: O(n log n) for n documents, plus the change computation.
    static func rebase(
        _ first: QuerySnapshot, on checkpoint: FeedCheckpoint, query: Query, sentResumeToken: Bool,
        mismatch: (String) -> Void
    ) -> QuerySnapshot {
        let ordering = DocumentOrdering(query: query)
        let stored = orderedDocuments(checkpoint, query: query)
        let current = first.documents.compactMap(\.document)
        let checked = DocumentChangeComputation.checkedChanges(from: stored, to: current, ordering: ordering)
        if let reason = checked.mismatch { mismatch(reason) }
        var statistics = first.statistics
        if let listen = statistics, listen.mode == nil {
            let delivered = checked.changes.count { $0.type != .removed }
            statistics = .listenResumed(
                documentsDelivered: delivered, resultSize: current.count, sentResumeToken: sentResumeToken)
        }
        return FeedSnapshot.make(
            query: first.query, documents: first.documents, changes: checked.changes, readTime: first.readTime,
            statistics: statistics, resumePoint: first.resumePoint)
    }
}
