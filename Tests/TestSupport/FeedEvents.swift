import FirestoreFeed
import FirestoreREST
import Synchronization

/// A feed's events: every poll's statistics and any failure.
package final class FeedEvents: Sendable {
    private let all = Mutex<[FeedEvent]>([])
    package init() {}
    /// Keeps one event.
    package func note(_ event: FeedEvent) { all.withLock { $0.append(event) } }
    /// The statistics of every poll, in order.
    package var polls: [PollStatistics] {
        all.withLock { events in
            events.compactMap { event in
                if case .polled(let statistics) = event { return statistics }
                return nil
            }
        }
    }
    /// Every poll or listen failure, described.
    package var failures: [String] {
        all.withLock { events in
            events.compactMap { event in
                switch event {
                case .pollFailed(let error, _), .listenFailed(let error, _, _): return "\(error)"
                default: return nil
                }
            }
        }
    }
}
