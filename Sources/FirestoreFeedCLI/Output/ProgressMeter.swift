import Foundation
import Synchronization

/// Progress of long work (`import`, `export`) on stderr, only when stderr is a terminal: one line rewritten in
/// place (`import: 1500 of 10000 documents, 2400/s, 0.6 s`) at most every 0.2 s, ended with a newline by
/// ``finish()``. With stderr a pipe or a file (a log, a test) it prints nothing, so output stays clean.
package final class ProgressMeter: Sendable {
    private struct State {
        var done = 0
        var lastShown: ContinuousClock.Instant?
        var shownAny = false
    }

    private let label: String
    private let total: Int?
    private let enabled: Bool
    private let started = ContinuousClock.now
    private let state = Mutex(State())

    /// A meter for `total` documents (`nil`: unknown), labelled `label` (the command); shown only when `enabled`
    /// (by default: when stderr is a terminal).
    package init(_ label: String, total: Int? = nil, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.total = total
        self.enabled = enabled
    }

    /// Counts `count` more documents done, and shows the line when 0.2 s have passed since it was last shown.
    package func advance(by count: Int = 1) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let shown: Int? = state.withLock { state in
            state.done += count
            if let last = state.lastShown, now - last < .milliseconds(200) { return nil }
            state.lastShown = now
            state.shownAny = true
            return state.done
        }
        if let shown { Console.progress(Self.line(label, done: shown, total: total, elapsed: now - started)) }
    }

    /// Shows the final count and ends the line (nothing when nothing was shown and nothing done).
    package func finish() {
        guard enabled else { return }
        let (done, shownAny) = state.withLock { ($0.done, $0.shownAny) }
        guard shownAny || done > 0 else { return }
        Console.progress(Self.line(label, done: done, total: total, elapsed: .now - started), ending: true)
    }

    /// `import: 1500 of 10000 documents, 2400/s, 0.6 s` (`export: 1500 documents, ...` without a total).
    package static func line(_ label: String, done: Int, total: Int?, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Int((Double(done) / seconds).rounded()) : 0
        let count = total.map { "\(done) of \($0)" } ?? "\(done)"
        return "\(label): \(count) documents, \(rate)/s, \(String(format: "%.1f", seconds)) s"
    }
}
