import Foundation
import Synchronization
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// Field case F-32 (identical polls replay in order), playback repeats, session order, pace on an injected
/// clock, and recorded failures.
@Suite(.timeLimit(.minutes(2))) struct ReplayOrderTests {
    static let runQueryPath = "/v1/projects/p/databases/(default)/documents:runQuery"
    static let pollBody = Data(#"{"structuredQuery":{"from":[{"collectionId":"fruits"}]}}"#.utf8)

    static func rows(_ ids: [String], readTime: String) -> Data {
        if ids.isEmpty { return Data(#"[{"readTime":"\#(readTime)","done":true}]"#.utf8) }
        let elements = ids.map { id in
            #"{"document":{"name":"projects/p/databases/(default)/documents/fruits/\#(id)","fields":{},"#
                + #""createTime":"2024-05-01T00:00:00Z","updateTime":"2024-05-01T00:00:00Z"},"readTime":"\#(readTime)"}"#
        }
        return Data(("[" + elements.joined(separator: ",") + "]").utf8)
    }

    static func poll(_ ids: [String], _ readTime: String, elapsed: Double = 0, duration: Double = 0)
        -> Cassette.Interaction
    {
        Cassette.Interaction(
            request: Cassette.Request(method: "POST", path: runQueryPath, body: pollBody),
            response: Cassette.Response(status: 200, body: rows(ids, readTime: readTime)),
            elapsed: elapsed, duration: duration)
    }

    /// Three identical polls recorded answering [a], [a, b], [b].
    static let polls = Cassette(interactions: [
        poll(["a"], "2024-05-01T00:00:01Z"), poll(["a", "b"], "2024-05-01T00:00:02Z"),
        poll(["b"], "2024-05-01T00:00:03Z"),
    ])

    static func client(_ transport: any HTTPTransport, retryPolicy: RetryPolicy = .none) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://replay.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false, retryPolicy: retryPolicy)
    }

    static func ids(_ db: Firestore) async throws -> [String] {
        try await db.collection("fruits").getDocuments().documents.map(\.documentID)
    }

    @Test func identicalPollsGetTheirAnswersInRecordedOrderThenFail() async throws {
        let replay = ReplayTransport(cassette: Self.polls, name: "polls.json")
        let db = try Self.client(replay)
        #expect(try await Self.ids(db) == ["a"])
        #expect(try await Self.ids(db) == ["a", "b"])
        #expect(try await Self.ids(db) == ["b"])
        do {
            _ = try await Self.ids(db)
            Issue.record("a fourth poll must fail in strict mode")
        } catch let error as FirestoreError {
            #expect(error.code == .failedPrecondition)
            #expect(
                error.message
                    == "polls.json: no unplayed interaction for POST \(Self.runQueryPath): interactions 0, 1, 2"
                    + " matched and were all played (allowPlaybackRepeats repeats the last one)")
        }
        #expect(replay.playCount == 3)
    }

    @Test func allowPlaybackRepeatsRepeatsTheLastAnswer() async throws {
        let replay = ReplayTransport(cassette: Self.polls, options: .init(allowPlaybackRepeats: true))
        let db = try Self.client(replay)
        var seen: [[String]] = []
        for _ in 0..<5 { seen.append(try await Self.ids(db)) }
        #expect(seen == [["a"], ["a", "b"], ["b"], ["b"], ["b"]])
        #expect(replay.playCount == 5)
    }

    @Test func sessionOrderHoldsAPollBackUntilTheWriteRecordedBeforeItWasPlayed() async throws {
        let write = Cassette.Interaction(
            request: Cassette.Request(
                method: "POST", path: "/v1/projects/p/databases/(default)/documents:commit",
                body: Data(#"{"writes":[]}"#.utf8)),
            response: Cassette.Response(status: 200, body: Data(#"{"commitTime":"2024-05-01T00:00:02Z"}"#.utf8)))
        let cassette = Cassette(interactions: [
            Self.poll(["a"], "2024-05-01T00:00:01Z"), write, Self.poll(["a", "b"], "2024-05-01T00:00:03Z"),
        ])
        let replay = ReplayTransport(cassette: cassette, options: .init(ordering: .session))
        let db = try Self.client(replay)
        #expect(try await Self.ids(db) == ["a"])
        let poller = Task {
            let ids = try await Self.ids(db)
            return (ids, replay.unplayedIndices)
        }
        // Wait until the second poll has taken interaction 2 and is held back.
        while replay.claimedCount < 2 { await Task.yield() }
        #expect(replay.unplayedIndices == [1, 2])
        _ = try await db.commit([])
        let (ids, unplayedWhenAnswered) = try await poller.value
        #expect(ids == ["a", "b"])
        #expect(unplayedWhenAnswered == [])
    }

    @Test func aHeldBackRequestIsCancellable() async throws {
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(method: "GET", path: "/first"), response: Cassette.Response(status: 200)),
            Cassette.Interaction(
                request: Cassette.Request(method: "GET", path: "/second"), response: Cassette.Response(status: 200)),
        ])
        let replay = ReplayTransport(cassette: cassette, options: .init(ordering: .session))
        let waiting = Task { try await replay.send(HTTPRequest(method: "GET", url: "http://h/second")) }
        while replay.claimedCount < 1 { await Task.yield() }
        waiting.cancel()
        let result = await waiting.result
        #expect(throws: FirestoreError(code: .cancelled, message: "cancelled while replaying GET /second")) {
            try result.get()
        }
        // The interaction is free again, and plays once its turn has come.
        #expect(try await replay.send(HTTPRequest(method: "GET", url: "http://h/first")).status == 200)
        #expect(try await replay.send(HTTPRequest(method: "GET", url: "http://h/second")).status == 200)
    }

    @Test func recordedPaceScaledOnAnInjectedClock() async throws {
        let cassette = Cassette(interactions: [
            Self.poll(["a"], "2024-05-01T00:00:01Z", elapsed: 0, duration: 0.5),
            Self.poll(["a", "b"], "2024-05-01T00:00:02Z", elapsed: 2, duration: 0.25),
            Self.poll(["b"], "2024-05-01T00:00:03Z", elapsed: 1, duration: 0),
        ])
        let clock = ImmediateClock()
        let replay = ReplayTransport(cassette: cassette, options: .init(pace: .recorded(speed: 2), clock: clock))
        let db = try Self.client(replay)
        _ = try await Self.ids(db)
        #expect(clock.now.offset == .milliseconds(250))  // (0 + 0.5) / 2
        _ = try await Self.ids(db)
        #expect(clock.now.offset == .milliseconds(1125))  // (2 + 0.25) / 2
        _ = try await Self.ids(db)
        #expect(clock.now.offset == .milliseconds(1500))  // (3 + 0) / 2
    }

    @Test func extremeSpeedsAreClampedAndTimesNeverOverflow() async throws {
        let cassette = Cassette(interactions: [Self.poll(["a"], "2024-05-01T00:00:01Z", elapsed: 0, duration: 0.5)])
        let slow = ImmediateClock()
        _ = try await Self.ids(
            try Self.client(
                ReplayTransport(
                    cassette: cassette, options: .init(pace: .recorded(speed: 1e-300), clock: slow))))
        #expect(slow.now.offset == .seconds(500))  // 0.5 s at the slowest speed, 0.001
        let notANumber = ImmediateClock()
        _ = try await Self.ids(
            try Self.client(
                ReplayTransport(
                    cassette: cassette, options: .init(pace: .recorded(speed: .nan), clock: notANumber))))
        #expect(notANumber.now.offset == .zero)
        let huge = Cassette(interactions: [Self.poll(["a"], "2024-05-01T00:00:01Z", elapsed: 1e300, duration: 1e300)])
        let far = ImmediateClock()
        _ = try await Self.ids(
            try Self.client(
                ReplayTransport(
                    cassette: huge, options: .init(pace: .recorded(speed: 0.001), clock: far))))
        // 1e9 s (the cap) / 0.001, to within the rounding of Duration's division by a Double.
        let error = far.now.offset - .seconds(1_000_000_000_000)
        #expect(error < .milliseconds(1) && error > .milliseconds(-1))
    }

    @Test func instantPaceNeverSleeps() async throws {
        let cassette = Cassette(interactions: [Self.poll(["a"], "2024-05-01T00:00:01Z", elapsed: 0, duration: 30)])
        let clock = ImmediateClock()
        let replay = ReplayTransport(cassette: cassette, options: .init(clock: clock))
        _ = try await Self.ids(try Self.client(replay))
        #expect(clock.now.offset == .zero)
    }

    /// A 429 with Retry-After, a 503, then a success, as a server might answer one read.
    static func failuresThenSuccess() -> Cassette {
        let path = "/v1/projects/p/databases/(default)/documents/c/d"
        return Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(method: "GET", path: path),
                response: Cassette.Response(
                    status: 429, headers: [HTTPHeader("retry-after", "7")],
                    body: Data(
                        #"{"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED"}}"#.utf8))),
            Cassette.Interaction(
                request: Cassette.Request(method: "GET", path: path),
                response: Cassette.Response(
                    status: 503,
                    body: Data(#"{"error":{"code":503,"message":"try later","status":"UNAVAILABLE"}}"#.utf8))),
            Cassette.Interaction(
                request: Cassette.Request(method: "GET", path: path),
                response: Cassette.Response(
                    status: 200,
                    body: Data(
                        #"{"name":"projects/p/databases/(default)/documents/c/d","fields":{"n":{"integerValue":"1"}},"createTime":"2024-05-01T00:00:00Z","updateTime":"2024-05-01T00:00:00Z"}"#
                            .utf8))),
        ])
    }

    @Test func recordedFailuresReplayLikeAnyResponse() async throws {
        let reference = try Self.client(ReplayTransport(cassette: Self.failuresThenSuccess())).document("c/d")
        var errors: [FirestoreError] = []
        for _ in 0..<2 {
            do {
                _ = try await reference.getDocument()
            } catch let error as FirestoreError {
                errors.append(error)
            }
        }
        #expect(errors.map(\.code) == [.resourceExhausted, .unavailable])
        #expect(errors.map(\.httpStatus) == [429, 503])
        #expect(errors.map(\.retryAfter) == [.seconds(7), nil])
        #expect(try await reference.getDocument().data() == ["n": .integer(1)])
    }

    @Test func theRetryPathReplaysOnAnInjectedClock() async throws {
        // The client's own retries: wait the server's 7 s, then the second back-off (2 x 250 ms, no jitter).
        let clock = ImmediateClock()
        let replay = ReplayTransport(cassette: Self.failuresThenSuccess())
        let policy = RetryPolicy(jitter: 0, clock: clock)
        let reference = try Self.client(replay, retryPolicy: policy).document("c/d")
        #expect(try await reference.getDocument().data() == ["n": .integer(1)])
        #expect(replay.playCount == 3)
        #expect(clock.now.offset == .milliseconds(7500))
    }
}
