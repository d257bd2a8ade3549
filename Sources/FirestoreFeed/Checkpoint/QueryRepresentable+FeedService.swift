import FirestoreREST

extension QueryRepresentable {
    /// The checkpointed change feed of
    /// `snapshots(source:interval:policy:checkpoint:key:onEvent:)` as a ``FeedService``, swift-service-lifecycle's
    /// `Service` shape: its ``FeedService/run()`` calls `handler` with each snapshot, one at a time, and moves the
    /// checkpoint to it when `handler` returns.
    ///
    /// ```swift
    /// let feed = db.collection("orders").service(checkpoint: store, key: "orders") { snapshot in
    ///     try await handle(snapshot.documentChanges)
    /// }
    /// try await feed.run()   // until its task is cancelled: then it finishes the snapshot in hand and returns
    /// ```
    ///
    /// When the task running ``FeedService/run()`` is cancelled, the snapshot in hand is finished (the handler's
    /// call is not cancelled), acknowledged and written, the key released, and `run()` returns normally; a restart
    /// resumes after that snapshot (`FeedServiceLiveTests`). At least once, as the checkpointed feed: a snapshot
    /// whose handler throws is not acknowledged, and `run()` throws the handler's error.
    ///
    /// - Parameters:
    ///   - source: ``FeedSource/listen`` (default) or ``FeedSource/poll(_:)`` in a `PollMode`.
    ///   - interval: time between polls (at least 10 ms); ignored when `policy` is given.
    ///   - policy: the full polling policy.
    ///   - store: the checkpoint store.
    ///   - key: the checkpoint's key in `store` (one feed at a time per key).
    ///   - onEvent: called with feed events.
    ///   - handler: called with each snapshot; returning acknowledges it.
    /// - Returns: the feed, started by its ``FeedService/run()``; each `run()` is one feed (one at a time per key).
    public func service(
        source: FeedSource = .listen, interval: Duration = .seconds(1), policy: PollingPolicy? = nil,
        checkpoint store: FeedCheckpointStore, key: String, onEvent: (@Sendable (FeedEvent) -> Void)? = nil,
        handler: @escaping @Sendable (QuerySnapshot) async throws -> Void
    ) -> FeedService {
        let query = self.query
        return FeedService {
            try await query.checkpointedFeed(
                source: source, policy: policy ?? PollingPolicy(interval: interval), checkpoint: store, key: key,
                onEvent: onEvent
            ).run(handler)
        }
    }
}
