import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// The VCR record modes over a cassette file: once, none, all, new episodes.
@Suite(.timeLimit(.minutes(2))) struct RecordModeTests {
    /// A server that answers `GET /n` with `n` followed by how many requests it has seen, e.g. `a#1`.
    static func server() -> ScriptedTransport {
        ScriptedTransport { request, index in
            let path = Cassette.Request.pathAndQuery(of: request.url)
            return HTTPResponse(status: 200, body: Data("\(path.dropFirst())#\(index + 1)".utf8))
        }
    }

    static func get(_ transport: any HTTPTransport, _ name: String) async throws -> String {
        String(
            decoding: try await transport.send(HTTPRequest(method: "GET", url: "http://h/\(name)")).body, as: UTF8.self)
    }

    static func temporaryPath() -> String {
        NSTemporaryDirectory() + "modes-\(UUID().uuidString).json"
    }

    static func bodies(_ path: String) throws -> [String] {
        try Cassette(contentsOfFile: path).interactions.map { String(decoding: $0.response.body, as: UTF8.self) }
    }

    @Test func onceRecordsWhenTheFileIsMissingThenReplaysStrictly() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let live = Self.server()
        let recording = try ReplayTransport(file: path, mode: .once, live: live)
        #expect(recording.isRecording)
        #expect(try await Self.get(recording, "a") == "a#1")
        #expect(try await Self.get(recording, "b") == "b#2")
        #expect(try Self.bodies(path) == ["a#1", "b#2"])

        let replaying = try ReplayTransport(file: path, mode: .once, live: live)
        #expect(!replaying.isRecording)
        #expect(try await Self.get(replaying, "b") == "b#2")
        #expect(try await Self.get(replaying, "a") == "a#1")
        await #expect(throws: FirestoreError.self) { try await Self.get(replaying, "c") }
        #expect(live.requests.count == 2)
        #expect(try Self.bodies(path) == ["a#1", "b#2"])
    }

    @Test func noneNeedsTheFileAndNeverRecords() async throws {
        let path = Self.temporaryPath()
        #expect(
            throws: FirestoreError(code: .notFound, message: "no cassette at \(path) (record mode none only replays)")
        ) {
            try ReplayTransport(file: path, mode: .none, live: Self.server())
        }
    }

    @Test func allRecordsEverythingAgainAndReplacesTheFile() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try ReplayTransport(file: path, mode: .all, live: Self.server())
        _ = try await Self.get(first, "a")
        let again = try ReplayTransport(file: path, mode: .all, live: Self.server())
        #expect(try await Self.get(again, "x") == "x#1")
        #expect(try await Self.get(again, "a") == "a#2")
        #expect(try Self.bodies(path) == ["x#1", "a#2"])
    }

    @Test func newEpisodesReplaysWhatMatchesAndAppendsTheRest() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await Self.get(try ReplayTransport(file: path, mode: .all, live: Self.server()), "a")
        let live = Self.server()
        let episodes = try ReplayTransport(file: path, mode: .newEpisodes, live: live)
        #expect(try await Self.get(episodes, "a") == "a#1")  // replayed
        #expect(try await Self.get(episodes, "b") == "b#1")  // recorded: the live server's first request
        #expect(try await Self.get(episodes, "a") == "a#2")  // the recorded "a" was played: recorded anew
        #expect(live.requests.count == 2)
        #expect(try Self.bodies(path) == ["a#1", "b#1", "a#2"])
    }

    @Test func recordingModesNeedALiveTransportAndAnExistingFolder() {
        #expect(
            throws: FirestoreError.invalidArgument("cassette: record mode all needs a live transport to record through")
        ) {
            try ReplayTransport(cassette: nil, mode: .all, live: nil)
        }
        #expect(
            throws: FirestoreError(
                code: .failedPrecondition,
                message: "cannot record to /nonexistent-dir/c.json: no folder /nonexistent-dir (create it first)")
        ) {
            try ReplayTransport(file: "/nonexistent-dir/c.json", mode: .once, live: Self.server())
        }
    }

    @Test func recordingKeepsTheOrderOfRequestsAndTheirTimes() async throws {
        let clock = ImmediateClock()
        let slowServer = ScriptedTransport { _, index in HTTPResponse(status: 200 + index) }
        let recorder = RecordingTransport(
            wrapping: CassetteSlowTransport(inner: slowServer, clock: clock),
            options: .init(clock: clock))
        _ = try await recorder.send(HTTPRequest(method: "GET", url: "http://h/one"))
        try await clock.sleep(for: .milliseconds(1500))
        _ = try await recorder.send(HTTPRequest(method: "GET", url: "http://h/two"))
        let interactions = recorder.cassette.interactions
        #expect(interactions.map(\.request.path) == ["/one", "/two"])
        #expect(interactions.map(\.response.status) == [200, 201])
        #expect(interactions.map(\.elapsed) == [0, 1.75])
        #expect(interactions.map(\.duration) == [0.25, 0.25])
    }

    @Test func aRequestThatGotNoResponseIsNotRecorded() async throws {
        let failing = ScriptedTransport { _, _ in HTTPResponse(status: 200) }
        let recorder = RecordingTransport(wrapping: CassetteRefusingTransport(after: failing))
        _ = try await recorder.send(HTTPRequest(method: "GET", url: "http://h/ok"))
        await #expect(throws: FirestoreError(code: .unavailable, message: "connection refused")) {
            _ = try await recorder.send(HTTPRequest(method: "GET", url: "http://h/down"))
        }
        #expect(recorder.cassette.interactions.map(\.request.path) == ["/ok"])
    }
}

/// Takes 250 ms of `clock` time per request.
struct CassetteSlowTransport: HTTPTransport {
    let inner: any HTTPTransport
    let clock: ImmediateClock
    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        do {
            try await clock.sleep(for: .milliseconds(250))
        } catch {
            throw FirestoreError(wrapping: error)
        }
        return try await inner.send(request)
    }
}

/// Answers `/ok` through `after`; throws `.unavailable` for anything else.
struct CassetteRefusingTransport: HTTPTransport {
    let after: any HTTPTransport
    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        guard request.url.hasSuffix("/ok") else {
            throw FirestoreError(code: .unavailable, message: "connection refused")
        }
        return try await after.send(request)
    }
}
