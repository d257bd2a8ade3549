import FirestoreWire
import Synchronization

/// A client's log handler and metrics factory, and the metric handlers made so far (one per label and
/// dimensions). Reading them takes a lock briefly; nothing is called under it.
package final class Observability: Sendable {
    private struct State {
        var logHandler: (any FirestoreLogHandler)?
        var metricsFactory: (any FirestoreMetricsFactory)?
        var counters: [String: any FirestoreCounter] = [:]
        var recorders: [String: any FirestoreRecorder] = [:]
        var timers: [String: any FirestoreTimer] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    package var logHandler: (any FirestoreLogHandler)? {
        get { state.withLock { $0.logHandler } }
        set { state.withLock { $0.logHandler = newValue } }
    }

    package var metricsFactory: (any FirestoreMetricsFactory)? {
        get { state.withLock { $0.metricsFactory } }
        set {
            state.withLock { state in
                state.metricsFactory = newValue
                state.counters = [:]
                state.recorders = [:]
                state.timers = [:]
            }
        }
    }

    /// Logs at `level` when a handler is set (`message` is built only then).
    package func log(
        _ level: FirestoreLogLevel, _ message: @autoclosure () -> String, metadata: [String: String] = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard let handler = logHandler else { return }
        handler.log(
            level: level, message: message(), metadata: metadata, source: "FirestoreFeed", file: file,
            function: function, line: line)
    }

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        label + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
    }

    /// The handler of `label` with `dimensions` kept in `cache`, made by the factory the first time; `nil` without
    /// a factory.
    private func handler<Handler: Sendable>(
        _ label: String, _ dimensions: [(String, String)], in cache: WritableKeyPath<State, [String: Handler]>,
        make: (any FirestoreMetricsFactory) -> Handler
    ) -> Handler? {
        let key = Self.key(label, dimensions)
        return state.withLock { state in
            guard let factory = state.metricsFactory else { return nil }
            if let handler = state[keyPath: cache][key] { return handler }
            let handler = make(factory)
            state[keyPath: cache][key] = handler
            return handler
        }
    }

    /// Adds `amount` to counter `label` with `dimensions`, when a factory is set.
    package func count(_ label: String, _ dimensions: [(String, String)] = [], by amount: Int64 = 1) {
        handler(label, dimensions, in: \.counters) { $0.makeCounter(label: label, dimensions: dimensions) }?
            .increment(by: amount)
    }

    /// Records `value` in recorder `label`, when a factory is set.
    package func record(_ label: String, _ dimensions: [(String, String)] = [], _ value: Double) {
        handler(label, dimensions, in: \.recorders) { $0.makeRecorder(label: label, dimensions: dimensions) }?
            .record(value)
    }

    /// Records `duration` in timer `label`, when a factory is set.
    package func time(_ label: String, _ dimensions: [(String, String)] = [], _ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        handler(label, dimensions, in: \.timers) { $0.makeTimer(label: label, dimensions: dimensions) }?
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
