import FirestoreFeed
import Foundation

/// Line output to stdout and stderr, flushed at once so pipes see each line as it is printed.
package enum Console {
    /// Writes `line` and a newline to stdout at once.
    package static func output(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `line` and a newline to stderr at once.
    package static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A feed event as one warning line on stderr.
    package static func report(_ event: FeedEvent) {
        switch event {
        case .pollFailed(let failure, let retryIn):
            let seconds = Double(retryIn.components.seconds) + Double(retryIn.components.attoseconds) / 1e18
            error(
                "warning: poll failed (the feed keeps its last good state), retrying in "
                    + "\((seconds * 100).rounded() / 100) s: \(failure)")
        case .recovered:
            error("note: polling recovered")
        case .fellBackToFullDocuments(let reason):
            error("note: keys mode refused, polling whole documents (\(reason))")
        case .listenFailed(let failure, let retryIn):
            let seconds = Double(retryIn.components.seconds) + Double(retryIn.components.attoseconds) / 1e18
            error(
                "warning: the Listen stream failed (the feed keeps its last good state), reconnecting in "
                    + "\((seconds * 100).rounded() / 100) s: \(failure)")
        case .fellBackToPolling(let reason):
            error("note: the Listen stream cannot be used, polling in keys mode (\(reason))")
        case .intervalNotKept(let interval, let actual):
            error(
                "warning: polling cannot keep its interval of \(seconds(interval)) s: the real interval is "
                    + "\(seconds(actual)) s (polls take longer than the interval)")
        }
    }

    /// `duration` in seconds, to two decimals.
    private static func seconds(_ duration: Duration) -> Double {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return (value * 100).rounded() / 100
    }
}
