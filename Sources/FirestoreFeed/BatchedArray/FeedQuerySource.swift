import FirestoreREST

/// The change feed of one query from any ``FeedSource`` as a ``QuerySnapshotSource``: the feed of
/// `query.snapshots(source:interval:policy:onEvent:)`, shared with every other listener of the same query (one
/// Listen target, or one poller).
///
/// A transient failure of the feed (``FeedEvent/listenFailed(_:retryIn:staleSince:)``, ``FeedEvent/pollFailed(_:retryIn:)``)
/// is a ``QuerySnapshotEvent/failure(_:)`` and the feed goes on; recovery is ``QuerySnapshotEvent/recovered``; an
/// error that ends the feed is the last event. A fallback from the Listen stream to polling is not an error (the
/// snapshots go on).
public struct FeedQuerySource: QuerySnapshotSource {
    /// The query watched.
    public let query: Query
    /// Where the snapshots come from (``FeedSource/listen`` unless told otherwise).
    public let source: FeedSource
    /// Interval, idle and error back-off when polling; error back-off for reconnecting a Listen stream.
    public let policy: PollingPolicy

    /// A source watching `query` from `source`; `interval` (at least 10 ms) or the full `policy` apply when
    /// polling.
    public init(
        _ query: some QueryRepresentable, source: FeedSource = .listen, interval: Duration = .seconds(1),
        policy: PollingPolicy? = nil
    ) {
        self.query = query.query
        self.source = source
        self.policy = policy ?? PollingPolicy(interval: interval)
    }

    public func makeSnapshotStream() -> AsyncStream<QuerySnapshotEvent> {
        let (query, source, policy) = (self.query, self.source, self.policy)
        return QuerySnapshotEvent.relay { query.snapshots(source: source, policy: policy, onEvent: $0) }
    }
}
