/// Where a change feed gets its snapshots from. Every source publishes the same `QuerySnapshot`s with the same
/// `DocumentChange` rules, so `BatchedArray`, `FirestoreQuery` and the CLI do not depend on the choice.
///
/// | source | latency | billed reads (Firestore pricing, "Listening to query results") |
/// |---|---|---|
/// | `listen` | milliseconds after the commit | the documents delivered: the initial result, then each document added, changed or leaving the result |
/// | `keys` | half the polling interval on average | every document the query returns, at every poll |
/// | `full` | the same | the same, with every document's fields on the wire |
/// | polling with `mode: .delta(field:)` | the same | 1 + ceil(documents / 1,000) per unchanged poll (a `count()`), plus each document changed; a keys scan when one leaves |
///
/// Delta polling is chosen with the `mode:` of `snapshots(source:interval:mode:policy:onEvent:)`
/// (`PollMode.delta(field:margin:reconcileInterval:)`, whatever `source` says), `PollingQuerySource(_:mode:)` or
/// `firestore-feed watch --mode delta`. Every snapshot's `QuerySnapshot.statistics` carries its billed reads
/// (`PollStatistics.billedReads`), and a polling feed reports every poll's, changed or not, as
/// `FeedEvent.polled(_:)`.
public enum FeedSource: String, Sendable, Hashable, CaseIterable {
    /// Firestore's Listen stream (`google.firestore.v1.Firestore/Listen`, gRPC over HTTP/2): one stream per client,
    /// one target per query. Falls back to `keys` polling when the stream cannot be opened
    /// (`FeedEvent.fellBackToPolling(reason:)`).
    case listen
    /// Polling in keys mode (`PollMode.keys`).
    case keys
    /// Polling whole documents (`PollMode.fullDocuments`).
    case full
}
