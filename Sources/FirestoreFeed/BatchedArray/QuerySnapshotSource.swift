import FirestoreREST

/// Where a ``BatchedArray`` gets its snapshots: anything that can start a listen on one query. The library's
/// sources are ``FeedQuerySource`` (the change feed behind `query.snapshots(source:)`) and ``PollingQuerySource``; tests and demos can
/// script their own.
public protocol QuerySnapshotSource: Sendable {
    /// Starts a new listen and returns its events in order. An error after which nothing more will come is the
    /// last event before the stream finishes. When the consumer stops iterating (the stream terminates), the
    /// listen must stop. Each call is a separate listen.
    func makeSnapshotStream() -> AsyncStream<QuerySnapshotEvent>
}
