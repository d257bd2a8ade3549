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

    /// A fast policy: back-off 50 ms doubling to 200 ms, no jitter. The liveness bound stays the default 60 s: almost
    /// every script ends in a hang, and a short bound would probe that quiet call and end it (a `listenFailed`, a new
    /// call on a new connection) a few seconds into the hang, or end a call that a slow scripted server took that
    /// long to answer, so a check made a little late on a loaded machine would see calls the test did not script.
    static let policy = PollingPolicy(
        interval: .milliseconds(200), errorBackoff: .init(initial: .milliseconds(50), maximum: .milliseconds(200)),
        jitter: 0)

    /// ``policy`` with the shortest liveness bound, 3 s (a probe after 2 s of silence, the call dead 0.75 s after it,
    /// looked at every 0.25 s): for the tests of liveness itself, which pass it to ``start(_:policy:)``.
    static let livenessPolicy: PollingPolicy = {
        var policy = Self.policy
        policy.listenLivenessTimeout = .seconds(3)
        return policy
    }()

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

    /// The next snapshot's document IDs and its changes, each `TYPE ID OLD NEW` (`-` for no index).
    mutating func nextSnapshot() async throws -> (ids: [String], changes: [String])? {
        try await feed.next().map { snapshot in
            (
                snapshot.documents.map(\.documentID),
                snapshot.documentChanges.map { change in
                    "\(change.type.rawValue) \(change.document.documentID) "
                        + "\(change.oldIndex.map(String.init) ?? "-") \(change.newIndex.map(String.init) ?? "-")"
                }
            )
        }
    }
}

extension ScriptedGRPCServer {
    /// The connection (numbered in order of arrival) that each of the first `count` Listen calls came on, once that
    /// many calls have been logged (waiting up to `timeout` seconds).
    func connectionsOfListenCalls(_ count: Int, timeout: Double = 30) async -> [JSONValue?] {
        _ = await listenCalls(atLeast: count, timeout: timeout)
        let calls = events("call").filter { $0["path"] == "/google.firestore.v1.Firestore/Listen" }
        return calls.prefix(count).map { $0["connection"] }
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
