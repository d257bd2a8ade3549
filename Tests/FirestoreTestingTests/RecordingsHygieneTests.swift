import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// Every file in `Recordings/` is free of secrets and of this machine's details, every cassette is exactly
/// what the recorder writes, and the README lists each one.
@Suite(.timeLimit(.minutes(2))) struct RecordingsHygieneTests {
    static func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: RecordingsFolder.url.path).filter { !$0.hasPrefix(".") }
            .sorted()
    }

    @Test func theFolderHoldsTheRecordedCassettes() throws {
        let files = try Self.files()
        for name in [
            "demo.json", "demo-listen.json", "values.json", "queries.json", "errors.json", "denied.json",
            "failures.json",
            "README.md",
        ] {
            #expect(files.contains(name), "Recordings/\(name) is missing")
        }
    }

    @Test func noFileHoldsASecret() throws {
        // Token shapes: Google OAuth access tokens, JWTs (base64 of `{"`), API keys, client secrets, PEM keys.
        let secretMarkers = ["ya29.", "eyJ", "AIza", "GOCSPX-", "-----BEGIN", "1//0"]
        for name in try Self.files() {
            let text = try String(contentsOfFile: RecordingsFolder.path(name), encoding: .utf8)
            for marker in secretMarkers {
                #expect(!text.contains(marker), "Recordings/\(name) contains \(marker)")
            }
            // Any Authorization value is the placeholder.
            for line in text.split(separator: "\n") where line.lowercased().contains("\"authorization\"") {
                #expect(
                    line.hasSuffix("\"Bearer <REDACTED>\"") || line.hasSuffix("\"Bearer <REDACTED>\","),
                    "Recordings/\(name): \(line)")
            }
        }
        for name in try Self.files() where name.hasSuffix(".json") {
            let cassette = try RecordingsFolder.cassette(name)
            for interaction in cassette.interactions {
                let scrubbed = SecretScrubber.standard.scrub(interaction)
                #expect(
                    scrubbed == interaction,
                    "Recordings/\(name): \(interaction.request.method) \(interaction.request.path)")
            }
            for (index, session) in cassette.listenSessions.enumerated() {
                #expect(
                    SecretScrubber.standard.scrub(session) == session, "Recordings/\(name): listenSessions[\(index)]")
            }
        }
    }

    @Test func noFileHoldsAMachinePathOrAddress() throws {
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        let markers = [
            "/home/", "/Users/", "/root/", "/tmp/", "/var/folders/", "/work/", ".build/", "C:\\",
            "127.0.0.1", "localhost", "::1", home, RecordingsFolder.url.deletingLastPathComponent().path,
        ]
        for name in try Self.files() {
            let text = try String(contentsOfFile: RecordingsFolder.path(name), encoding: .utf8)
            for marker in markers where marker.count > 1 {
                #expect(!text.contains(marker), "Recordings/\(name) contains \(marker)")
            }
        }
    }

    @Test func everyCassetteIsExactlyWhatTheRecorderWrites() throws {
        for name in try Self.files() where name.hasSuffix(".json") {
            let data = try Data(contentsOf: RecordingsFolder.url.appendingPathComponent(name))
            let cassette = try Cassette(jsonData: data, source: name)
            #expect(!cassette.interactions.isEmpty, "\(name) is empty")
            #expect(cassette.jsonData() == data, "\(name) is not in the recorder's form: re-run Scripts/record")
        }
    }

    @Test func theReadmeListsEveryCassette() throws {
        let readme = try String(contentsOfFile: RecordingsFolder.path("README.md"), encoding: .utf8)
        for name in try Self.files() where name.hasSuffix(".json") || name.hasSuffix(".rules") {
            #expect(readme.contains("`\(name)`"), "Recordings/README.md does not describe \(name)")
        }
    }
}
