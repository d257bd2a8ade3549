import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

/// The polling change feed over a scripted transport and an immediate clock: no network, no sleeping.
@Suite(.timeLimit(.minutes(2))) struct QueryPollerTests {
    struct Change: Equatable {
        let type: DocumentChangeType
        let id: String
        let oldIndex: Int?
        let newIndex: Int?
        init(_ type: DocumentChangeType, _ id: String, _ oldIndex: Int?, _ newIndex: Int?) {
            (self.type, self.id, self.oldIndex, self.newIndex) = (type, id, oldIndex, newIndex)
        }
    }

    static func changes(_ snapshot: QuerySnapshot) -> [Change] {
        snapshot.documentChanges.map { Change($0.type, $0.document.documentID, $0.oldIndex, $0.newIndex) }
    }

    /// A policy without jitter, so delays are exact.
    static func policy(_ interval: Duration) -> PollingPolicy { PollingPolicy(interval: interval, jitter: 0) }

    static func query(_ transport: ScriptedTransport) throws -> Query {
        let db = try Firestore.offline(transport: transport)
        return db.collection("fruits").order(by: "name")
    }

    /// Field case B-10: poll 1 gives [a,b]; poll 2 fails with 503; poll 3 gives [a,b,c]. After poll 2 nothing
    /// is published (the last snapshot stays) and the error is reported; poll 3 publishes only insert(c @2).
    @Test func aFailedPollKeepsTheLastSnapshotAndIsRetried() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body: RunQueryBody.make(
                    readTime: "2024-05-01T00:00:01Z",
                    [
                        ("a", "2024-05-01T00:00:00Z", "A"), ("b", "2024-05-01T00:00:00Z", "B"),
                    ])),
            .response(status: 503, body: #"{"error":{"code":503,"status":"UNAVAILABLE"}}"#),
            .response(
                status: 200,
                body: RunQueryBody.make(
                    readTime: "2024-05-01T00:00:03Z",
                    [
                        ("a", "2024-05-01T00:00:00Z", "A"), ("b", "2024-05-01T00:00:00Z", "B"),
                        ("c", "2024-05-01T00:00:02Z", "C"),
                    ])),
        ])
        let errors = ErrorLog()
        let clock = CountingClock()
        var feed = PollerPool(clock: clock).snapshots(
            of: try Self.query(transport), mode: .full, policy: Self.policy(.seconds(5))
        ) { errors.append($0) }
        .makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(Self.changes(first) == [Change(.added, "a", nil, 0), Change(.added, "b", nil, 1)])
        let second = try #require(try await feed.next())
        #expect(Self.changes(second) == [Change(.added, "c", nil, 2)])
        #expect(second.documents.map(\.documentID) == ["a", "b", "c"])
        #expect(second.readTime == (try Timestamp(rfc3339: "2024-05-01T00:00:03Z")))
        #expect(errors.codes == [.unavailable])
        #expect(transport.requests.count == 3)
        #expect(clock.sleepCount >= 2)
    }

    @Test func unchangedPollsPublishNothingAndAStaleResponseIsDropped() async throws {
        let both = [("a", "2024-05-01T00:00:00Z", "A"), ("b", "2024-05-01T00:00:00Z", "B")]
        let transport = ScriptedTransport([
            .response(status: 200, body: RunQueryBody.make(readTime: "2024-05-01T00:00:05Z", both)),
            .response(status: 200, body: RunQueryBody.make(readTime: "2024-05-01T00:00:06Z", both)),
            // Older than the last applied read: b was deleted at 06 but this answer predates it.
            .response(
                status: 200,
                body: RunQueryBody.make(
                    readTime: "2024-05-01T00:00:04Z",
                    [("a", "2024-05-01T00:00:00Z", "A")])),
            .response(
                status: 200,
                body: RunQueryBody.make(
                    readTime: "2024-05-01T00:00:07Z",
                    [("b", "2024-05-01T00:00:00Z", "B")])),
        ])
        var feed = PollerPool(clock: ImmediateClock()).snapshots(
            of: try Self.query(transport), mode: .full, policy: Self.policy(.seconds(1))
        )
        .makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(first.count == 2)
        let next = try #require(try await feed.next())
        #expect(Self.changes(next) == [Change(.removed, "a", 0, nil)])
        #expect(next.readTime == (try Timestamp(rfc3339: "2024-05-01T00:00:07Z")))
        #expect(transport.requests.count == 4)
    }

    @Test func aPermanentErrorEndsTheFeed() async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: RunQueryBody.make(readTime: "2024-05-01T00:00:01Z", [])),
            .response(status: 403, body: #"{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}"#),
        ])
        var feed = PollerPool(clock: ImmediateClock()).snapshots(
            of: try Self.query(transport), mode: .full, policy: Self.policy(.seconds(1))
        )
        .makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(first.isEmpty)
        #expect(first.documentChanges.isEmpty)
        await #expect(throws: FirestoreError(code: .permissionDenied, message: "denied", httpStatus: 403)) {
            _ = try await feed.next()
        }
    }

    @Test func everyPollSendsTheSameRunQueryWithTheOwnerToken() async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: RunQueryBody.make(readTime: "2024-05-01T00:00:01Z", [])),
            .response(
                status: 200,
                body: RunQueryBody.make(
                    readTime: "2024-05-01T00:00:02Z",
                    [("a", "2024-05-01T00:00:00Z", "A")])),
        ])
        var feed = PollerPool(clock: ImmediateClock()).snapshots(
            of: try Self.query(transport), mode: .full, policy: Self.policy(.seconds(1))
        )
        .makeAsyncIterator()
        _ = try await feed.next()
        _ = try await feed.next()
        let requests = transport.requests
        #expect(requests.count == 2)
        #expect(
            requests.map(\.url)
                == Array(
                    repeating:
                        "http://127.0.0.1:1/v1/projects/p/databases/(default)/documents:runQuery", count: 2))
        #expect(requests.first?.method == "POST")
        #expect(requests.first?.headers.first { $0.matches("authorization") }?.value == "Bearer owner")
        let body = try JSONValue.parse(requests.first?.body ?? Data())
        #expect(
            body
                == (try JSONValue.parse(
                    #"""
                    {"structuredQuery":{"from":[{"collectionId":"fruits"}],
                     "orderBy":[{"field":{"fieldPath":"name"},"direction":"ASCENDING"}]}}
                    """#)))
        #expect(requests.first?.body == requests.last?.body)
    }
}

/// Collects the events a feed reports.
final class ErrorLog: Sendable {
    private let events = Mutex<[FeedEvent]>([])
    func append(_ event: FeedEvent) { events.withLock { $0.append(event) } }
    /// The codes of the failed polls, in order.
    var codes: [FirestoreError.Code] {
        events.withLock { events in
            events.compactMap { event in
                if case .pollFailed(let error, _) = event { return error.code }
                return nil
            }
        }
    }
    /// Every event but the per-poll statistics (`.polled`), in order.
    var all: [FeedEvent] {
        events.withLock { events in
            events.filter { event in
                if case .polled = event { return false }
                return true
            }
        }
    }
    /// The statistics of every poll, in order.
    var polls: [PollStatistics] {
        events.withLock { events in
            events.compactMap { event in
                if case .polled(let statistics) = event { return statistics }
                return nil
            }
        }
    }
}
