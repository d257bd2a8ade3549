import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// The logging and metrics seams (swift-log's and swift-metrics' shapes) on the emulator: every request counted by
/// method and status and timed, a Listen feed's snapshots, billed reads and lag recorded, and messages at trace and
/// debug only, with the client's metadata.
@Suite(.timeLimit(.minutes(2))) struct ObservabilityLiveTests {
    final class Recorded: Sendable {
        let counters = Mutex<[String: Int64]>([:])
        let recorded = Mutex<[String: [Double]]>([:])
        let messages = Mutex<[(FirestoreLogLevel, String, [String: String])]>([])
    }

    struct Handler: FirestoreLogHandler {
        let recorded: Recorded
        func log(
            level: FirestoreLogLevel, message: String, metadata: [String: String], source: String, file: String,
            function: String, line: UInt
        ) {
            recorded.messages.withLock { $0.append((level, message, metadata)) }
        }
    }

    struct Factory: FirestoreMetricsFactory {
        let recorded: Recorded
        static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
            label + dimensions.map { " \($0.0)=\($0.1)" }.joined()
        }
        struct Counter: FirestoreCounter {
            let key: String
            let recorded: Recorded
            func increment(by amount: Int64) { recorded.counters.withLock { $0[key, default: 0] += amount } }
        }
        struct Recorder: FirestoreRecorder, FirestoreTimer {
            let key: String
            let recorded: Recorded
            func record(_ value: Double) { recorded.recorded.withLock { $0[key, default: []].append(value) } }
            func recordNanoseconds(_ duration: Int64) { record(Double(duration)) }
        }
        func makeCounter(label: String, dimensions: [(String, String)]) -> any FirestoreCounter {
            Counter(key: Self.key(label, dimensions), recorded: recorded)
        }
        func makeRecorder(label: String, dimensions: [(String, String)]) -> any FirestoreRecorder {
            Recorder(key: Self.key(label, dimensions), recorded: recorded)
        }
        func makeTimer(label: String, dimensions: [(String, String)]) -> any FirestoreTimer {
            Recorder(key: Self.key(label, dimensions), recorded: recorded)
        }
    }

    /// Over REST a request's status is its HTTP status; over gRPC its status code's name.
    @Test(arguments: [(FirestoreProtocol.rest, "200"), (.grpc, "OK")])
    func requestsAndAListenFeedAreCountedTimedAndLogged(wire: FirestoreProtocol, ok: String) async throws {
        let db = try LiveFirestore.make("observability").using(protocol: wire)
        let recorded = Recorded()
        db.logHandler = Handler(recorded: recorded)
        db.metricsFactory = Factory(recorded: recorded)
        try await db.document("k/a").setData(["v": 1])
        _ = try await db.document("k/a").getDocument()
        var feed = db.collection("k").snapshots().makeAsyncIterator()
        _ = try await feed.next()
        try await db.document("k/b").setData(["v": 2])
        _ = try await feed.next()
        let counters = recorded.counters.withLock { $0 }
        #expect(counters["firestore_requests_total method=commit status=\(ok)"] == 2)
        #expect(counters["firestore_requests_total method=\(wire == .rest ? "get" : "getDocument") status=\(ok)"] == 1)
        #expect(counters["firestore_feed_snapshots_total source=listen"] == 2)
        // Listen bills the documents delivered: a in the first snapshot, b in the second.
        #expect(counters["firestore_feed_billed_reads_total source=listen"] == 2)
        #expect(recorded.recorded.withLock { $0["firestore_request_duration method=commit"]?.count } == 2)
        #expect(recorded.recorded.withLock { $0["firestore_feed_lag_seconds source=listen"]?.count } == 2)
        let messages = recorded.messages.withLock { $0 }
        #expect(messages.allSatisfy { $0.0 == .debug || $0.0 == .trace })
        let commit = messages.first { $0.1 == "commit answered \(ok)" }
        #expect(commit?.2["firestore.method"] == "commit")
        #expect(commit?.2["firestore.project"] == db.database.projectID)
        #expect(commit?.2["firestore.attempt"] == "1")
        // Nothing once the seams are cleared.
        db.logHandler = nil
        db.metricsFactory = nil
        _ = try await db.document("k/a").getDocument()
        #expect(
            recorded.counters.withLock {
                $0["firestore_requests_total method=\(wire == .rest ? "get" : "getDocument") status=\(ok)"]
            } == 1)
    }
}
