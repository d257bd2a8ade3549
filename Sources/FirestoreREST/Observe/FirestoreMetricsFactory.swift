import FirestoreWire

/// A counter, as swift-metrics' `CounterHandler` (https://github.com/apple/swift-metrics).
public protocol FirestoreCounter: Sendable {
    /// Adds `amount` (at least 0).
    func increment(by amount: Int64)
}

/// A recorder of values, as swift-metrics' `RecorderHandler`.
public protocol FirestoreRecorder: Sendable {
    /// Records one value.
    func record(_ value: Double)
}

/// A timer, as swift-metrics' `TimerHandler`.
public protocol FirestoreTimer: Sendable {
    /// Records one duration in nanoseconds.
    func recordNanoseconds(_ duration: Int64)
}

/// Makes the client's metrics: the shape of swift-metrics' `MetricsFactory` (labels and dimensions), so that an
/// adapter to a swift-metrics backend is a few lines. Set on a client with ``Firestore/metricsFactory``; nothing is
/// recorded by default. Handlers are made once per label and dimensions and kept.
///
/// Metrics (labels, dimensions):
/// - `firestore_requests_total` (`method`, `status`): every REST attempt, by method and HTTP status (`error` when
///   there was no response); `firestore_request_duration` (`method`), a timer per attempt;
///   `firestore_retries_total` (`method`); `firestore_response_bytes_total` (`method`).
/// - `firestore_feed_billed_reads_total` (`source`: `listen`, `keys`, `full`, `delta`): the reads Firestore bills
///   for each poll and each Listen snapshot; `firestore_feed_snapshots_total` (`source`);
///   `firestore_feed_lag_seconds` (`source`), a recorder of now minus each snapshot's read time;
///   `firestore_feed_coalesced_total`; `firestore_listen_reconnects_total`; `firestore_listen_fallbacks_total`.
/// - `firestore_checkpoint_writes_total`; `firestore_group_lease_events_total` (`event`);
///   `firestore_pubsub_publish_retries_total` (a publish of a feed's changes sent again).
public protocol FirestoreMetricsFactory: Sendable {
    /// A counter for `label` with `dimensions` (name-value pairs, e.g. `("method", "commit")`), as
    /// swift-metrics' `makeCounter(label:dimensions:)`; called once per label and dimensions.
    func makeCounter(label: String, dimensions: [(String, String)]) -> any FirestoreCounter
    /// A recorder of values (seconds for `firestore_feed_lag_seconds`), as swift-metrics' `makeRecorder`.
    func makeRecorder(label: String, dimensions: [(String, String)]) -> any FirestoreRecorder
    /// A timer (nanoseconds), as swift-metrics' `makeTimer(label:dimensions:)`.
    func makeTimer(label: String, dimensions: [(String, String)]) -> any FirestoreTimer
}
