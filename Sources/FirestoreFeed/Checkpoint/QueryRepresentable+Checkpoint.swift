import FirestoreREST

extension QueryRepresentable {
    /// The change feed of ``snapshots(source:interval:policy:onEvent:)``, with a durable checkpoint under
    /// `key` in `store`: a restarted process resumes where the last one left off, and no change is ever skipped.
    ///
    /// ```swift
    /// let store = try await FeedCheckpointStore(path: "/var/lib/orders/feed.sqlite")
    /// for try await snapshot in db.collection("orders").snapshots(checkpoint: store, key: "orders") {
    ///     try await handle(snapshot.documentChanges)   // the checkpoint moves when the loop asks for the next
    /// }
    /// ```
    ///
    /// - Resume: the first snapshot after a restart lists only what changed while the process was down (added,
    ///   modified, removed against the stored documents; `oldIndex` refers to the stored list in query order), and
    ///   `onEvent` hears ``FeedEvent/resumedFromCheckpoint(key:readTime:)`` just before it. It is delivered even
    ///   when nothing changed. With no checkpoint yet, the feed starts as usual (every document added).
    /// - Cost of a resume: delta polling resumes from the stored watermark (its first poll is a delta poll, 1 +
    ///   ceil(documents / 1,000) reads plus the documents changed); keys mode fetches only the documents whose
    ///   `updateTime` moved (the keys scan is billed in full); a Listen feed resumed within 30 minutes of its last
    ///   snapshot sends the stored resume token and is billed only for the documents changed meanwhile, later as a
    ///   new query (https://firebase.google.com/docs/firestore/pricing#listens;
    ///   `BilledReads.listenResumed(documentsDelivered:resultSize:sentResumeToken:)`).
    /// - At least once: a snapshot is written to the checkpoint when the consumer asks for the next one (the
    ///   iterator's `next()`), or when it calls ``FeedCheckpointStore/acknowledge(key:)``; never before. A process
    ///   that dies while handling a snapshot gets its changes again after the restart. A snapshot a slow consumer
    ///   receives folded from several is written as received. Each write is one SQLite transaction of
    ///   O(changed documents) rows.
    /// - One feed per key: a second feed on `key` (this process or another) ends at once with `.failedPrecondition`;
    ///   a key holding another query's checkpoint too. A damaged store ends the feed with `.dataLoss`, a store of a
    ///   newer schema with `.failedPrecondition`; a failed write ends it with the write's error. The key is
    ///   released when the feed ends.
    /// - Listeners on the same query do not share a checkpointed feed's poller or Listen target (it resumes from
    ///   its own state); everything else is as ``snapshots(source:interval:policy:onEvent:)``.
    ///
    /// - Parameters:
    ///   - source: ``FeedSource/listen`` (default) or ``FeedSource/poll(_:)`` in a `PollMode`.
    ///   - interval: time between polls (at least 10 ms); ignored when `policy` is given.
    ///   - policy: the full polling policy.
    ///   - store: the checkpoint store.
    ///   - key: the checkpoint's key in `store` (any string; one feed at a time per key).
    ///   - onEvent: called with feed events, ``FeedEvent/resumedFromCheckpoint(key:readTime:)`` included.
    public func snapshots(
        source: FeedSource = .listen, interval: Duration = .seconds(1), policy: PollingPolicy? = nil,
        checkpoint store: FeedCheckpointStore, key: String,
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) -> AsyncThrowingStream<QuerySnapshot, any Error> {
        query.checkpointedFeed(
            source: source, policy: policy ?? PollingPolicy(interval: interval), checkpoint: store, key: key,
            onEvent: onEvent
        ).makeStream()
    }
}

extension Query {
    /// The checkpointed feed behind `snapshots(source:interval:policy:checkpoint:key:onEvent:)` and
    /// `service(source:interval:policy:checkpoint:key:onEvent:handler:)`, on the shared pools.
    func checkpointedFeed(
        source: FeedSource, policy: PollingPolicy, checkpoint store: FeedCheckpointStore, key: String,
        onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> CheckpointedFeed {
        let upstream: CheckpointedFeed.Upstream
        switch source {
        case .listen:
            upstream = CheckpointUpstream.listen(
                self, policy: policy, pool: .shared, checkpointID: store.path + " " + key, onEvent: onEvent)
        case .poll(let mode):
            upstream = CheckpointUpstream.poll(
                self, mode: mode, policy: policy, clock: PollerPool.shared.clock, onEvent: onEvent)
        }
        return CheckpointedFeed(
            store: store, key: key, query: self, source: source, onEvent: onEvent, upstream: upstream)
    }
}

extension PollerPool {
    /// A polling change feed of `query` with a durable checkpoint under `key` in `store`, polling on this pool's
    /// clock: see `QueryRepresentable.snapshots(source:interval:policy:checkpoint:key:onEvent:)`. Its poller is
    /// its own (it resumes from the checkpoint), not shared with the pool's other listeners.
    public func snapshots(
        of query: Query, mode: PollMode = .keys, policy: PollingPolicy = PollingPolicy(),
        checkpoint store: FeedCheckpointStore, key: String, onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) -> AsyncThrowingStream<QuerySnapshot, any Error> {
        CheckpointedFeed(
            store: store, key: key, query: query, source: .poll(mode), onEvent: onEvent,
            upstream: CheckpointUpstream.poll(query, mode: mode, policy: policy, clock: clock, onEvent: onEvent)
        ).makeStream()
    }
}
