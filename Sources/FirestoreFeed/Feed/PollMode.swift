import FirestoreREST

/// How a change feed fetches each poll's result. Every mode publishes the same snapshots; they differ in what a
/// poll costs (``PollStatistics/billedReads``, Firestore pricing: https://firebase.google.com/docs/firestore/pricing).
public enum PollMode: Sendable, Hashable {
    /// Two phases (the default): runQuery with `select: [__name__]` returns every matching document's name,
    /// `createTime` and `updateTime` in query order, and no fields; then one batchGet at the same `readTime`
    /// fetches only the documents that are new or whose `updateTime` moved. The snapshot is consistent (one
    /// read time) and an unchanged poll costs a fraction of the bytes, but Firestore bills every document the
    /// query returns at every poll (10,000 reads per poll of a 10,000-document query).
    case keys
    /// One runQuery returning whole documents every poll: billed like ``keys``, with every field on the wire.
    case full
    /// Delta polling, for collections whose writers set `field` to the server time on every write
    /// (`FieldValue.serverTimestamp()`; `Firestore.settingServerTimestamp(on:)` does it for every write of a
    /// client). A poll asks only for the query's documents whose `field` is at or after the previous poll's
    /// `readTime` minus `margin`, plus a `count()` of the query at the same `readTime`: an unchanged
    /// 10,000-document query is billed 1 + ceil(10,000 / 1,000) = 11 reads per poll instead of 10,000.
    ///
    /// - The count tells whether a document left the result or was deleted; only then does the poll fall back
    ///   to a keys scan (``PollStatistics/keysScan``). So does a change that can move the edge of a `limit` or
    ///   `limit(toLast:)` window, a query with an `offset`, and a projection (`select`) that leaves out a field
    ///   the query orders by.
    /// - `margin` is not optional: the server time a commit writes into the field (`REQUEST_TIME`) precedes the
    ///   commit itself (the document's `updateTime`) by tens of milliseconds on the emulator
    ///   (`DeltaPollingLiveTests.serverTimePrecedesTheCommit`), longer in a transaction, so a write whose field
    ///   time is older than the previous `readTime` may still commit after it. Documents found again inside
    ///   the margin are not changes unless their `updateTime` moved; they are billed
    ///   (``PollStatistics/marginRereads``).
    /// - Every `reconcileInterval` (measured in server `readTime`s) a poll also runs a keys scan and reports how
    ///   many documents it found out of date (``PollStatistics/drift``: 0 unless a writer skipped the field).
    /// - A writer that does not set the field breaks the rule: such a change is found by the next reconciling
    ///   scan, not before.
    /// - Production Firestore needs a composite index for the query's filters plus `field` (the first poll's
    ///   `failed-precondition` error carries the console link, `FirestoreError.indexURL`).
    ///
    /// - Parameters:
    ///   - field: the tracking field, a path in the form of `FieldPath.description` (`updatedAt`, `meta.updatedAt`,
    ///     a segment with dots in backticks); an invalid path ends the feed with `invalid-argument`.
    ///   - margin: how far before the previous `readTime` the next poll looks (default 5 s; at least 0).
    ///   - reconcileInterval: server time between reconciling keys scans (default 10 minutes).
    case delta(field: String, margin: Duration = .seconds(5), reconcileInterval: Duration = .seconds(600))

    /// `keys`, `full` or `delta`: the mode's name in statistics and on the command line.
    public var name: String {
        switch self {
        case .keys: return "keys"
        case .full: return "full"
        case .delta: return "delta"
        }
    }
}
