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
