import FirestoreWire

/// What ``QueryRepresentable/explain(options:)`` (`Snapshot` ``QuerySnapshot``) and
/// ``AggregateQuery/explain(options:)`` (``AggregateQuerySnapshot``) return (Node `ExplainResults`, Python
/// `ExplainMetrics` beside the results): the server's metrics and, when the query ran, its results.
public struct ExplainResults<Snapshot: Sendable>: Sendable {
    /// The plan and, with ``ExplainOptions/analyze``, the execution stats; `nil` when the server sent none: the
    /// Firestore emulator ignores `explainOptions` and answers with the plain results.
    public let metrics: ExplainMetrics?
    /// The results of the query when it ran: with ``ExplainOptions/analyze``, or on a server that ignored the
    /// explain options (the emulator); `nil` for a plan-only explanation.
    public let snapshot: Snapshot?

    /// Results from their parts.
    public init(metrics: ExplainMetrics?, snapshot: Snapshot?) {
        self.metrics = metrics
        self.snapshot = snapshot
    }
}
