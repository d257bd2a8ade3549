import FirestoreFeed
import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// Issue 17: a replay never hangs silently. In session order a response held behind an interaction nobody
/// requests, a Listen response held behind a recorded write nobody makes (`afterInteractions`), a Listen call waiting for a recorded
/// request the client does not send, and a Listen call whose recording is played while the client listens on,
/// all fail after the stall timeout with `.failedPrecondition` naming what is missing (as `.perRequest` fails
/// when every recorded answer was played). Short stall timeouts, so each test waits well under a second.
@Suite(.timeLimit(.minutes(2))) struct ReplayStallTests {
    static let commitPath = "/v1/projects/p/databases/(default)/documents:commit"

    static let write = Cassette.Interaction(
        request: Cassette.Request(method: "POST", path: commitPath, body: Data(#"{"writes":[]}"#.utf8)),
        response: Cassette.Response(status: 200, body: Data(#"{"commitTime":"2024-05-01T00:00:02Z"}"#.utf8)))

    /// A feed's polls recorded with a write in between.
    static let pollsAroundAWrite = Cassette(interactions: [
        ReplayOrderTests.poll(["a"], "2024-05-01T00:00:01Z"), write,
        ReplayOrderTests.poll(["a", "b"], "2024-05-01T00:00:03Z"),
    ])

    static func options(ordering: ReplayTransport.Ordering = .session) -> ReplayTransport.Options {
        ReplayTransport.Options(ordering: ordering, stallTimeout: .milliseconds(200))
    }

    @Test func aPollHeldBehindAWriteNobodyMakesFailsNamingTheWrite() async throws {
        let replay = ReplayTransport(cassette: Self.pollsAroundAWrite, options: Self.options(), name: "feed.json")
        let db = try ReplayOrderTests.client(replay)
        #expect(try await ReplayOrderTests.ids(db) == ["a"])
        let error = await #expect(throws: FirestoreError.self) { _ = try await ReplayOrderTests.ids(db) }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "feed.json: POST \(ReplayOrderTests.runQueryPath) (interaction 2) is held in session order behind "
                + "interaction 1 (POST \(Self.commitPath)), which nothing requested in 0.2 s: the code under test "
                + "does not make every request recorded before this one (unplayed before it: 1); replay the whole "
                + "session, or use ordering .perRequest to serve each request without waiting")
        // The poll gave its interaction back: it is unplayed, and plays once the write is made.
        #expect(replay.unplayedIndices == [1, 2])
        _ = try await db.commit([])
        #expect(try await ReplayOrderTests.ids(db) == ["a", "b"])
    }

    /// Per request, the same replay serves the polls at once and fails past the last one, as before.
    @Test func perRequestServesThePollsWithoutTheWrite() async throws {
        let replay = ReplayTransport(
            cassette: Self.pollsAroundAWrite, options: Self.options(ordering: .perRequest), name: "feed.json")
        let db = try ReplayOrderTests.client(replay)
        #expect(try await ReplayOrderTests.ids(db) == ["a"])
        #expect(try await ReplayOrderTests.ids(db) == ["a", "b"])
        await #expect(throws: FirestoreError.self) { _ = try await ReplayOrderTests.ids(db) }
    }

    /// A write that comes late (but within the stall timeout of the last progress) is waited for.
    @Test func aWriteMadeInTimeReleasesTheHeldPoll() async throws {
        let replay = ReplayTransport(
            cassette: Self.pollsAroundAWrite,
            options: ReplayTransport.Options(ordering: .session, stallTimeout: .seconds(30)))
        let db = try ReplayOrderTests.client(replay)
        #expect(try await ReplayOrderTests.ids(db) == ["a"])
        let poll = Task { try await ReplayOrderTests.ids(db) }
        // The write comes once the poll is held behind it (60 s guard against a hang only).
        #expect(await eventually(seconds: 60) { replay.heldCount == 1 })
        _ = try await db.commit([])
        #expect(try await poll.value == ["a", "b"])
    }

    // MARK: Listen

    /// An apple listener whose last snapshot point was recorded after the write (`afterInteractions: 1`).
    static func listenCassette(end: Cassette.ListenSession.End? = .cancelledByClient) throws -> Cassette {
        let responses: [ListenResponse] = [
            .targetChange(ListenTargetChange(kind: .add, targetIDs: [1])),
            .documentChange(ListenDocumentChange(document: ListenTesting.appleDocument, targetIDs: [1])),
            .targetChange(
                ListenTargetChange(
                    kind: .current, targetIDs: [1], resumeToken: [1],
                    readTime: try Timestamp(rfc3339: "2024-05-01T00:00:01Z"))),
        ]
        let afterTheWrite = Cassette.ListenSession.Message(
            .response,
            ListenResponse.targetChange(
                ListenTargetChange(kind: .noChange, readTime: try Timestamp(rfc3339: "2024-05-01T00:00:03Z"))
            ).protoJSON, afterInteractions: 1)
        return Cassette(
            interactions: [Self.write],
            listenSessions: [try ListenReplayTests.session(responses: responses, then: [afterTheWrite], end: end)])
    }

    @Test func aListenResponseHeldBehindAWriteNobodyMakesEndsTheCall() async throws {
        let replay = ReplayTransport(cassette: try Self.listenCassette(), options: Self.options(), name: "listen.json")
        let call = try ListenReplayTests.call(replay)
        try call.send(ListenTesting.addApple())
        let (taken, error) = await ListenTesting.collect(call)
        #expect(taken.count == 3)
        #expect(
            error
                == FirestoreError(
                    code: .failedPrecondition,
                    message: "listen.json: listenSessions[0].messages[4] was recorded after 1 interaction and is held "
                        + "until it was played, but interaction 0 (POST \(Self.commitPath)) was not requested in 0.2 s: "
                        + "the code under test does not make the requests (writes) recorded while it listened; make "
                        + "them too, or use ordering .perRequest to replay the Listen session on its own"
                ))
    }

    @Test func aListenResponseWaitsForTheWriteItFollows() async throws {
        let replay = ReplayTransport(
            cassette: try Self.listenCassette(end: .finished),
            options: ReplayTransport.Options(ordering: .session, stallTimeout: .seconds(30)))
        let call = try ListenReplayTests.call(replay)
        try call.send(ListenTesting.addApple())
        #expect(try await ListenTesting.take(3, from: call).count == 3)
        let rest = Task { await ListenTesting.collect(call) }
        // The write comes once the last response is held behind it (60 s guard against a hang only).
        #expect(await eventually(seconds: 60) { replay.heldCount == 1 })
        _ = try await ReplayOrderTests.client(replay).commit([])
        let (taken, error) = await rest.value
        #expect(taken.count == 1)
        #expect(error == nil)
    }

    @Test func aRecordedRequestTheClientNeverSendsEndsTheCall() async throws {
        let remove = try ListenRequest(removing: 1, database: ListenTesting.database).protoJSON()
        let session = try ListenReplayTests.session(
            responses: [ListenTesting.appleResponses[0]],
            then: [.init(.request, remove), .init(.response, ListenTesting.appleResponses[3].protoJSON)])
        let replay = ReplayTransport(
            cassette: Cassette(listenSessions: [session]), options: Self.options(), name: "listen.json")
        let call = try ListenReplayTests.call(replay)
        try call.send(ListenTesting.addApple())
        let (taken, error) = await ListenTesting.collect(call)
        #expect(taken == [ListenTesting.appleResponses[0]])
        #expect(
            error
                == FirestoreError(
                    code: .failedPrecondition,
                    message: "listen.json: listenSessions[0].messages[2]: the recording has the client send "
                        + #"{"database":"projects/p/databases/(default)","removeTarget":1} here, and nothing was sent "#
                        + "in 0.2 s, so the 1 responses recorded after it cannot be played"))
    }

    @Test func aClientListeningPastTheRecordingIsToldSo() async throws {
        let replay = ReplayTransport(
            cassette: Cassette(listenSessions: [try ListenReplayTests.session()]), options: Self.options(),
            name: "listen.json")
        let call = try ListenReplayTests.call(replay)
        try call.send(ListenTesting.addApple())
        let (taken, error) = await ListenTesting.collect(call)
        #expect(taken == ListenTesting.appleResponses)
        #expect(
            error
                == FirestoreError(
                    code: .failedPrecondition,
                    message: "listen.json: listenSessions[0]: all 5 recorded messages were played and the recording "
                        + "ends with the client leaving, but it still listens 0.2 s later; nothing more can come from "
                        + "this recording (the code under test listens longer than the recorded run)"))
    }
}
