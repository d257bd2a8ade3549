import FirestoreREST

/// Where a change feed gets its snapshots from: Firestore's Listen stream, or polling in one of the `PollMode`s.
/// Every source publishes the same `QuerySnapshot`s with the same `DocumentChange` rules, so `BatchedArray`,
/// `FirestoreQuery` and the CLI do not depend on the choice.
///
/// | source | latency | billed reads (Firestore pricing, "Listening to query results") |
/// |---|---|---|
/// | `.listen` | milliseconds after the commit | the documents delivered: the initial result, then each document added, changed or leaving the result |
/// | `.poll(.keys)` | half the polling interval on average | every document the query returns, at every poll |
/// | `.poll(.full)` | the same | the same, with every document's fields on the wire |
/// | `.poll(.delta(field:))` | the same | 1 + ceil(documents / 1,000) per unchanged poll (a `count()`), plus each document changed; a keys scan when one leaves |
///
/// Every snapshot's `QuerySnapshot.statistics` carries its billed reads (`PollStatistics.billedReads`), and a polling
/// feed reports every poll's, changed or not, as `FeedEvent.polled(_:)`. `firestore-feed watch --mode` takes the same
/// names: ``name``.
public enum FeedSource: Sendable, Hashable, CustomStringConvertible {
    /// Firestore's Listen stream (`google.firestore.v1.Firestore/Listen`, gRPC over HTTP/2): one stream per client,
    /// one target per query. Falls back to `.poll(.keys)` when the stream cannot be used
    /// (`FeedEvent.fellBackToPolling(reason:)`).
    case listen
    /// Polling the query every interval, fetching each poll's result in `mode`.
    case poll(PollMode)

    /// `listen`, `keys`, `full` or `delta`: the source's name, as `watch --mode` takes it.
    public var name: String {
        switch self {
        case .listen: "listen"
        case .poll(let mode): mode.name
        }
    }

    /// ``name``.
    public var description: String { name }

    /// The source named `name` (``name``): `delta` takes its tracking field from `deltaField`, the others none.
    /// - Returns: `nil` for another name, for `delta` without a field, or for a field with another name.
    public init?(name: String, deltaField: String? = nil) {
        switch (name, deltaField) {
        case ("listen", nil): self = .listen
        case ("keys", nil): self = .poll(.keys)
        case ("full", nil): self = .poll(.full)
        case ("delta", let field?): self = .poll(.delta(field: field))
        default: return nil
        }
    }

    /// The names ``init(name:deltaField:)`` takes, in the order help lists them.
    public static let names = ["listen", "keys", "full", "delta"]
}
