import FirestoreREST

/// The feeds a ``CheckpointedFeed`` reads, started from its checkpoint: each its own (not shared with other
/// listeners of the query), since it resumes from this checkpoint's state.
enum CheckpointUpstream {
    /// A poller of its own in `mode`, resuming from the checkpoint's documents, `readTime` and delta watermark
    /// (``CheckpointResume/pollState(from:query:mode:)``).
    static func poll(
        _ query: Query, mode: PollMode, policy: PollingPolicy, clock: any Clock<Duration>,
        onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> CheckpointedFeed.Upstream {
        { checkpoint, _ in
            let buffer = CoalescingBuffer(coalesce: SnapshotCoalescing.query(query, onEvent: onEvent), onEvent: onEvent)
            let state = checkpoint.map { CheckpointResume.pollState(from: $0, query: query, mode: mode) }
            let poller = QueryPoller(
                query: query, mode: mode, policy: policy, clock: clock, resumingFrom: state, onEmpty: { _ in })
            if let id = poller.addListener(buffer, onEvent: onEvent) {
                buffer.setOnTermination { poller.removeListener(id) }
            }
            return buffer
        }
    }

    /// A Listen target: with a resume token, one of its own whose view starts from the checkpoint's documents and
    /// sends the token (``CheckpointResume/listenView(from:query:resumeToken:)``), so the server sends only what
    /// changed since; without one (no checkpoint, or its snapshot is 30 minutes old or more), an ordinary target,
    /// whose first snapshot the feed rebases on the checkpoint.
    static func listen(
        _ query: Query, policy: PollingPolicy, pool: WatchStreamPool, checkpointID: String,
        onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> CheckpointedFeed.Upstream {
        { checkpoint, resumeToken in
            listen(
                query, policy: policy, pool: pool, checkpointID: checkpointID, onEvent: onEvent,
                resumingFrom: checkpoint, at: resumeToken.map { .resumeToken($0) })
        }
    }

    /// A Listen target: with a checkpoint and a resume point (a resume token, or the read time its documents were
    /// read at), one of its own whose view starts from the checkpoint's documents and sends that point, so the
    /// server sends only what changed since; otherwise an ordinary target.
    static func listen(
        _ query: Query, policy: PollingPolicy, pool: WatchStreamPool, checkpointID: String,
        onEvent: (@Sendable (FeedEvent) -> Void)?, resumingFrom checkpoint: FeedCheckpoint?,
        at resumePoint: ListenTarget.ResumePoint?
    ) -> CoalescingBuffer<QuerySnapshot> {
        let buffer = CoalescingBuffer(coalesce: SnapshotCoalescing.query(query, onEvent: onEvent), onEvent: onEvent)
        var seed: (id: String, view: WatchTargetState)?
        if let checkpoint, let resumePoint {
            seed = (
                checkpointID, CheckpointResume.listenView(from: checkpoint, query: query, resumePoint: resumePoint)
            )
        }
        pool.feed(buffer, of: query, policy: policy, onEvent: onEvent, checkpoint: seed)
        return buffer
    }
}
