import FirestoreWire

/// What ``QueryRepresentable/explain(options:)`` and ``AggregateQuery/explain(options:)`` ask the server (REST
/// reference: `ExplainOptions`; Node `ExplainOptions`, Python `ExplainOptions`).
public struct ExplainOptions: Sendable, Hashable {
    /// Whether the query also runs: `false` plans it only (``ExplainMetrics/planSummary``, no documents); `true`
    /// runs it and returns its results with ``ExplainMetrics/executionStats`` (and bills its reads).
    public var analyze: Bool

    /// Options that plan the query, and run it too when `analyze` is `true`.
    public init(analyze: Bool = false) {
        self.analyze = analyze
    }

    /// The REST `ExplainOptions` object: `{"analyze": true}`.
    package var restJSON: JSONValue { ["analyze": .bool(analyze)] }
}
