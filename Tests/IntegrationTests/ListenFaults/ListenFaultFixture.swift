import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// A Listen feed of `fruits` ordered by name, on a client of its own, against a scripted gRPC server: what every
/// Listen fault test needs, with the events it heard described in a line each.
struct ListenFaultFixture {
    let server: ScriptedGRPCServer
    let db: Firestore
    let events: RecordedEvents
    var feed: AsyncThrowingStream<QuerySnapshot, any Error>.AsyncIterator

    /// A fast policy: back-off 50 ms doubling to 200 ms, no jitter, liveness bound 3 s.
    static let policy = PollingPolicy(
        interval: .milliseconds(200), errorBackoff: .init(initial: .milliseconds(50), maximum: .milliseconds(200)),
        jitter: 0, listenLivenessTimeout: .seconds(3))

    /// Starts the server with one step list per Listen call and opens the feed.
    static func start(_ calls: [[JSONValue]], policy: PollingPolicy = policy) async throws -> ListenFaultFixture {
        let server = try await ScriptedGRPCServer.start(script: ListenScript.script(calls))
        let db = try Firestore.emulator(host: server.host, projectID: ListenScript.project)
        let events = RecordedEvents()
        let feed = db.collection("fruits").order(by: "n").snapshots(source: .listen, policy: policy) {
            events.note($0)
        }
        return ListenFaultFixture(server: server, db: db, events: events, feed: feed.makeAsyncIterator())
    }

    /// The next snapshot's document IDs.
    mutating func nextIDs() async throws -> [String]? {
        try await feed.next().map { $0.documents.map(\.documentID) }
    }
}

/// A feed's events, each described in one line (times and back-offs left out).
final class RecordedEvents: Sendable {
    private let all = Mutex<[(at: ContinuousClock.Instant, event: FeedEvent)]>([])

    func note(_ event: FeedEvent) { all.withLock { $0.append((.now, event)) } }

    var events: [FeedEvent] { all.withLock { $0.map(\.event) } }

    /// Each event with when it was heard.
    var timed: [(at: ContinuousClock.Instant, event: FeedEvent)] { all.withLock { $0 } }

    /// `listenFailed unavailable: ...`, `listenRecovered`, `listenProbed`, `fellBackToPolling: ...`,
    /// `listenTargetReset: ...`; poll statistics left out.
    var lines: [String] {
        events.compactMap { event in
            switch event {
            case .listenFailed(let error, _, _): "listenFailed \(error)"
            case .listenRecovered: "listenRecovered"
            case .listenProbed(_, let reads): "listenProbed \(reads)"
            case .fellBackToPolling(let reason): "fellBackToPolling: \(reason)"
            case .listenTargetReset(let reason): "listenTargetReset: \(reason)"
            case .pollFailed(let error, _): "pollFailed \(error)"
            case .recovered: "recovered"
            case .polled: nil
            default: "\(event)"
            }
        }
    }

    /// Waits up to `timeout` seconds until some line satisfies `condition`.
    func wait(timeout: Double = 30, for condition: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if lines.contains(where: condition) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return lines.contains(where: condition)
    }
}
