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

    /// Adds `amount` to counter `label` with `dimensions`, when a factory is set.
    package func count(_ label: String, _ dimensions: [(String, String)] = [], by amount: Int64 = 1) {
        let key = Self.key(label, dimensions)
        let counter: (any FirestoreCounter)? = state.withLock { state in
            guard let factory = state.metricsFactory else { return nil }
            if let counter = state.counters[key] { return counter }
            let counter = factory.makeCounter(label: label, dimensions: dimensions)
            state.counters[key] = counter
            return counter
        }
        counter?.increment(by: amount)
    }

    /// Records `value` in recorder `label`, when a factory is set.
    package func record(_ label: String, _ dimensions: [(String, String)] = [], _ value: Double) {
        let key = Self.key(label, dimensions)
        let recorder: (any FirestoreRecorder)? = state.withLock { state in
            guard let factory = state.metricsFactory else { return nil }
            if let recorder = state.recorders[key] { return recorder }
            let recorder = factory.makeRecorder(label: label, dimensions: dimensions)
            state.recorders[key] = recorder
            return recorder
        }
        recorder?.record(value)
    }

    /// Records `duration` in timer `label`, when a factory is set.
    package func time(_ label: String, _ dimensions: [(String, String)] = [], _ duration: Duration) {
        let key = Self.key(label, dimensions)
        let timer: (any FirestoreTimer)? = state.withLock { state in
            guard let factory = state.metricsFactory else { return nil }
            if let timer = state.timers[key] { return timer }
            let timer = factory.makeTimer(label: label, dimensions: dimensions)
            state.timers[key] = timer
            return timer
        }
        let (seconds, attoseconds) = duration.components
        timer?.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
