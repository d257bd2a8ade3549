import FirestoreFeedCLI
import FirestoreREST
import FirestoreTesting
import Foundation
import Testing

/// `--allow-playback-repeats` on the commands that take `--cassette` (issue 17: the replay error's hint named an
/// option only `serve-cassette` had), and the hint in the command line's words. Replays only: no network.
@Suite(.timeLimit(.minutes(2))) struct CassetteOptionsTests {
    /// A command taking the connection and cassette options, as `get` does.
    struct TryCommand: ParsableCommand {
        static let spec = CommandSpec(
            usage: ["try PATH [options]"], abstract: "A test command.",
            options: ConnectionOptions.options + CassetteOptions.options)

        let connection: FirestoreConnection

        init(parsing reader: ArgumentReader) throws(ValidationError) {
            connection = try FirestoreConnection(parsing: reader)
        }

        func validate() throws(ValidationError) { try connection.validate() }

        func run() async throws(CLIError) {}
    }

    /// A cassette with one recorded `GET` of `things/one`.
    static func cassetteFile() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cli-repeats-\(UUID().uuidString).json")
        let body =
            #"{\"name\":\"projects/demo-r/databases/(default)/documents/things/one\",\"fields\":{\"n\":{\"integerValue\":\"1\"}},\"createTime\":\"2024-01-01T00:00:00Z\",\"updateTime\":\"2024-01-01T00:00:00Z\"}"#
        try Data(
            #"""
            {"format":"firestore-feed-cassette","version":1,"interactions":[{"duration":0.01,"elapsed":0.0,
             "request":{"headers":{"accept":"application/json"},"method":"GET",
                        "path":"/v1/projects/demo-r/databases/(default)/documents/things/one"},
             "response":{"body":"\#(body)","headers":{"content-type":"application/json"},"status":200}}]}
            """#.utf8
        ).write(to: file)
        return file
    }

    static func client(_ arguments: [String]) async throws -> Firestore {
        do {
            return try await TryCommand.parse(arguments).connection.makeClient()
        } catch {
            throw FirestoreError(code: .unknown, message: "\(error)")
        }
    }

    @Test func withTheFlagTheLastAnswerRepeats() async throws {
        let file = try Self.cassetteFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let db = try await Self.client(["--cassette", file.path, "--project", "demo-r", "--allow-playback-repeats"])
        #expect(try await db.document("things/one").getDocument().data() == ["n": 1])
        #expect(try await db.document("things/one").getDocument().data() == ["n": 1])
    }

    @Test func withoutItTheSecondRequestFailsWithAHintNamingTheOption() async throws {
        let file = try Self.cassetteFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let db = try await Self.client(["--cassette", file.path, "--project", "demo-r", "--record-mode", "none"])
        _ = try await db.document("things/one").getDocument()
        let error = await #expect(throws: FirestoreError.self) { try await db.document("things/one").getDocument() }
        #expect(
            error?.message
                == "\(file.path): no unplayed interaction for GET /v1/projects/demo-r/databases/(default)/documents"
                + "/things/one: interaction 0 matched and was played (--allow-playback-repeats repeats the last one)")
    }

    @Test func theFlagNeedsACassette() async throws {
        let error = await #expect(throws: FirestoreError.self) {
            try await Self.client(["--allow-playback-repeats", "--emulator", "127.0.0.1:1"])
        }
        #expect(error?.message.hasPrefix("usage(\"--allow-playback-repeats needs --cassette FILE\"") == true)
    }

    @Test func aMessageOverSeveralLinesBecomesOne() {
        #expect(
            ErrorReport.oneLine("no entity to update: app: \"dev~p\"\npath <\n  Element {\n  }\n>\n")
                == "no entity to update: app: \"dev~p\" path < Element { } >")
    }
}
