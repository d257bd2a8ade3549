import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Testing

@testable import FirestoreFeed

/// A member taking over a shard reads the shard's documents at its checkpoint's read time (the view its first
/// snapshot is computed against): a failed read is retried like a poll and reported, a checkpoint the server can
/// no longer read at starts the shard over and says so, and a permanent error ends the member.
@Suite(.timeLimit(.minutes(1))) struct FeedGroupMemberStartTests {
    static let checkpoint = ShardCheckpoint(
        readTime: (try? Timestamp(rfc3339: "2024-05-01T00:00:01Z")) ?? .minimum, resumeToken: [0x01])

    static func start(_ transport: ScriptedTransport, events: ErrorLog) async throws -> FeedCheckpoint? {
        let clock = CountingClock()
        let query = try transport.firestore(clock: clock).collection("fruits").order(by: "name")
        return try await FeedGroupMember.startingView(
            of: query, at: checkpoint, key: "shard 0", policy: PollingPolicy(interval: .seconds(1), jitter: 0),
            onEvent: { events.append($0) }, clock: clock)
    }

    @Test func aFailedReadIsReportedAndRetriedUntilItSucceeds() async throws {
        let unavailable = HTTPResponse.error(503, "UNAVAILABLE", "try later")
        let view = RunQueryBody.make(
            readTime: "2024-05-01T00:00:01Z",
            [("a", "2024-05-01T00:00:00Z", "A"), ("b", "2024-05-01T00:00:00Z", "B")])
        let transport = ScriptedTransport { _, index in
            index < 5 ? unavailable : HTTPResponse(status: 200, body: .init(view.utf8))
        }
        let events = ErrorLog()
        let started = try #require(try await Self.start(transport, events: events))
        #expect(started.documents.map(\.id) == ["a", "b"])
        #expect(started.readTime == Self.checkpoint.readTime)
        #expect(started.resumeToken == [0x01])
        // The client's own 5 attempts, then the feed's retry after its back-off of 1 s.
        #expect(transport.requests.count == 6)
        #expect(events.codes == [.unavailable])
        #expect(
            events.all.map(\.description) == ["pollFailed(unavailable (HTTP 503): try later, retryIn: 1.0 seconds)"])
        #expect(transport.bodies.first?["readTime"] == "2024-05-01T00:00:01Z")
    }

    @Test func aCheckpointTooOldToReadAtStartsTheShardOver() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 400,
                body: #"{"error":{"code":400,"message":"The requested 'read_time' is too old.","#
                    + #""status":"FAILED_PRECONDITION"}}"#)
        ])
        let events = ErrorLog()
        #expect(try await Self.start(transport, events: events) == nil)
        #expect(transport.requests.count == 1)
        let notResumed = events.all.compactMap { event -> [String]? in
            guard case .checkpointNotResumed(let key, let reason) = event else { return nil }
            return [key, reason]
        }
        #expect(
            notResumed == [
                [
                    "shard 0",
                    "the shard's documents cannot be read at its checkpoint's time 2024-05-01T00:00:01Z: "
                        + "failed-precondition (HTTP 400): The requested 'read_time' is too old.",
                ]
            ])
        #expect(events.all.count == 1)
    }

    @Test func aPermanentErrorEndsTheStart() async throws {
        let transport = ScriptedTransport([
            .response(status: 403, body: #"{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}"#)
        ])
        let events = ErrorLog()
        await #expect(throws: FirestoreError.self) { try await Self.start(transport, events: events) }
        #expect(transport.requests.count == 1)
        #expect(events.all.isEmpty)
    }
}
