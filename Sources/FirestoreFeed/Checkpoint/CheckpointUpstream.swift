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

    /// A Listen target of its own.
    static func listen(
        _ query: Query, policy: PollingPolicy, pool: WatchStreamPool, onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> CheckpointedFeed.Upstream {
        { _, _ in
            let buffer = CoalescingBuffer(coalesce: SnapshotCoalescing.query(query, onEvent: onEvent), onEvent: onEvent)
            let stream = pool.snapshots(of: query, policy: policy, onEvent: onEvent)
            let forwarding = Task {
                do {
                    for try await snapshot in stream { buffer.yield(snapshot) }
                    buffer.finish()
                } catch {
                    buffer.finish(throwing: error)
                }
            }
            buffer.setOnTermination { forwarding.cancel() }
            return buffer
        }
    }
}
