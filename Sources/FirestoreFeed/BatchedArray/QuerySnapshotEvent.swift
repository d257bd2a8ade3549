import FirestoreREST

/// One event of a ``QuerySnapshotSource`` listen.
public enum QuerySnapshotEvent: Sendable {
    /// The whole current result of the query (the first one of a listen holds everything).
    case snapshot(QuerySnapshot)
    /// An error. The listen goes on unless the stream finishes after it.
    case failure(any Error)
    /// The source works again after failures but has no new result to report (a snapshot means the same).
    case recovered
}

extension QuerySnapshotEvent {
    /// The events of a change feed: each snapshot, each transient failure the feed reports through its events
    /// (`pollFailed`, `listenFailed`), recovery, and the error that ends the feed as the last event. Fallbacks are
    /// not failures (the snapshots go on). `feed` is called once, with the event handler to pass on.
    static func relay(
        _ feed: @escaping (@escaping @Sendable (FeedEvent) -> Void) -> AsyncThrowingStream<QuerySnapshot, any Error>
    ) -> AsyncStream<QuerySnapshotEvent> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let snapshots = feed { event in
                switch event {
                case .pollFailed(let error, _), .listenFailed(let error, _): continuation.yield(.failure(error))
                case .recovered: continuation.yield(.recovered)
                case .fellBackToFullDocuments, .fellBackToPolling, .intervalNotKept: break
                }
            }
            let task = Task {
                do {
                    for try await snapshot in snapshots { continuation.yield(.snapshot(snapshot)) }
                } catch {
                    continuation.yield(.failure(error))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
