import FirestoreREST

/// Something a change feed wants its listeners to know besides snapshots.
public enum FeedEvent: Sendable, Hashable {
    /// A poll failed with a transient error; the last snapshot stays and the next poll comes after `retryIn`.
    case pollFailed(FirestoreError, retryIn: Duration)
    /// A poll succeeded after failures; the error is cleared.
    case recovered
    /// Keys mode was refused by the server; the feed now polls whole documents. `reason` is the server's error.
    case fellBackToFullDocuments(reason: String)
}
