import FirestoreREST

/// The change feed of one query as a ``QuerySnapshotSource``: the feed of
/// `query.snapshots(source:interval:policy:onEvent:)` in a polling mode, served by `pool` (the pool every feed shares
/// unless a test brings its own clock), so a BatchedArray shares its polls with every other listener on the same query.
///
/// Each failed poll (``FeedEvent/pollFailed(_:retryIn:)``) is a ``QuerySnapshotEvent/failure(_:)`` and the
/// feed goes on (`QueryPollerTests.aFailedPollKeepsTheLastSnapshotAndIsRetried`); a later good poll is
/// ``QuerySnapshotEvent/recovered`` (and a snapshot when the result changed); an error that ends the feed (an invalid
/// query, ``PollingPolicy/isPermanent(_:)``) is the last event. Failures are reported as soon as the feed reports them,
/// while snapshots pass through the feed's stream: a failure can only overtake the snapshot of the poll before it if
/// this stream's relay is not scheduled for a whole poll interval (at least 10 ms).
public struct PollingQuerySource: QuerySnapshotSource {
    /// The query polled.
    public let query: Query
    /// Keys (two phases, the default) or full documents.
    public let mode: PollMode
    /// Interval, idle and error back-off.
    public let policy: PollingPolicy
    /// The pool whose pollers serve the listens.
    public let pool: PollerPool

    /// A source polling `query` every `interval` (at least 10 ms), or with the full `policy` when given, served
    /// by `pool`: `nil` (default) for the pool every `snapshots(...)` call shares, or a ``PollerPool`` of your own
    /// on another clock.
    public init(
        _ query: some QueryRepresentable, interval: Duration = .seconds(1), mode: PollMode = .keys,
        policy: PollingPolicy? = nil, pool: PollerPool? = nil
    ) {
        self.query = query.query
        self.mode = mode
        self.policy = policy ?? PollingPolicy(interval: interval)
        self.pool = pool ?? .shared
    }

    public func makeSnapshotStream() -> AsyncStream<QuerySnapshotEvent> {
        let (query, mode, policy, pool) = (self.query, self.mode, self.policy, self.pool)
        return QuerySnapshotEvent.relay { pool.snapshots(of: query, mode: mode, policy: policy, onEvent: $0) }
    }
}
