import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// How the tool chooses what it talks to (issue 17): the emulator's address forms, the project it uses when none
/// is named (said on stderr), production options and the errors of a machine with no credentials; and
/// `watch --max-failures`.
@Suite(.timeLimit(.minutes(2))) struct CLIConnectionTests {
    /// Runs the tool in exactly `environment` (FIRESTORE_EMULATOR_HOST included when it is there).
    static func run(_ arguments: [String], _ environment: [String: String]) async throws -> CLIProcess.Result {
        try await CLIProcess(arguments, environment: environment, keepingEmulatorHost: true).finish()
    }

    /// `http://HOST:PORT`, as `--emulator` or `FIRESTORE_EMULATOR_HOST`, and `GOOGLE_CLOUD_PROJECT` before
    /// `GCLOUD_PROJECT`: no note when a project is named.
    @Test func theEmulatorByURLAndTheProjectFromTheEnvironment() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-conn")
        try await Firestore.emulator(host: host, projectID: project).document("fruits/apple").setData(["n": 1])
        let home = try CLIEnvironment.emptyHome("conn")
        defer { try? FileManager.default.removeItem(at: home) }
        let named = CLIEnvironment.production(
            home: home.path, ["GOOGLE_CLOUD_PROJECT": project, "GCLOUD_PROJECT": "demo-not-this"])
        let byOption = try await Self.run(["count", "fruits", "--emulator", "http://\(host)"], named)
        #expect(byOption.status == 0, "\(byOption.stderr)")
        #expect(byOption.stdout == "1\n")
        #expect(byOption.stderr == "")
        let byVariable = try await Self.run(
            ["count", "fruits"], named.merging(["FIRESTORE_EMULATOR_HOST": "http://\(host)"]) { _, new in new })
        #expect(byVariable.stdout == "1\n", "\(byVariable.stderr)")
    }

    /// No project named: the emulator gets demo-project, and stderr says so (issue 17: it was silent).
    @Test func anUnnamedProjectIsNamedOnStderr() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let home = try CLIEnvironment.emptyHome("note")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await Self.run(
            ["count", "nothing-here", "--emulator", host], CLIEnvironment.production(home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "0\n")
        #expect(
            result.stderr
                == "note: using project \"demo-project\" on the emulator at \(host) "
                + "(no --project, GOOGLE_CLOUD_PROJECT or GCLOUD_PROJECT given)\n"
                + "note: no documents matched in project \"demo-project\", database (default), on the emulator at "
                + "\(host)\n")
        let dryRun = try await Self.run(["query", "c", "--dry-run"], CLIEnvironment.production(home: home.path))
        #expect(dryRun.stdout.contains(#""path":"/v1/projects/demo-project/databases/(default)/documents:runQuery""#))
        #expect(dryRun.stderr.hasPrefix("note: using project \"demo-project\" in the dry run"))
    }

    @Test(
        arguments: [
            (
                ["get", "c/d", "--emulator", "https://127.0.0.1:8080"], [:],
                #"error: --emulator "https://127.0.0.1:8080": expected HOST, HOST:PORT or http://HOST:PORT (e.g. 127.0.0.1:8080)"#
            ),
            (
                ["get", "c/d", "--emulator", "127.0.0.1:8080/v1"], [:],
                #"error: --emulator "127.0.0.1:8080/v1": expected HOST, HOST:PORT or http://HOST:PORT (e.g. 127.0.0.1:8080)"#
            ),
            (
                ["get", "c/d"], ["FIRESTORE_EMULATOR_HOST": "localhost:port"],
                #"error: FIRESTORE_EMULATOR_HOST="localhost:port": expected HOST, HOST:PORT or http://HOST:PORT (e.g. 127.0.0.1:8080)"#
            ),
            (
                ["get", "c/d", "--emulator", "127.0.0.1:1", "--credentials", "key.json"], [:],
                "error: --credentials is for production Firestore, but the emulator at 127.0.0.1:1 is named (by --emulator or FIRESTORE_EMULATOR_HOST): drop one of them"
            ),
            (
                ["get", "c/d", "--project", "demo-p", "--endpoint", "http://127.0.0.1:1"], [:],
                "error: --endpoint \"http://127.0.0.1:1\": expected https://HOST[:PORT] (production is reached over https; for the emulator use --emulator)"
            ),
            (
                ["get", "c/d", "--project", "demo-p", "--endpoint", "https://host/path"], [:],
                "error: --endpoint \"https://host/path\": expected https://HOST[:PORT]"
            ),
            (
                ["get", "c/d", "--project", "demo-p", "--ca-bundle", "/nonexistent.pem"], [:],
                "error: --ca-bundle \"/nonexistent.pem\": no readable file there"
            ),
            (
                ["watch", "c", "--emulator", "127.0.0.1:1", "--max-failures", "0"], [:],
                "error: --max-failures \"0\": expected a whole number above 0"
            ),
        ] as [([String], [String: String], String)])
    func connectionUsageErrors(arguments: [String], extra: [String: String], message: String) async throws {
        let home = try CLIEnvironment.emptyHome("usage")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await Self.run(arguments, CLIEnvironment.production(home: home.path, extra))
        #expect(result.status == 2)
        #expect(result.stderr == message + "\nsee 'firestore-feed help \(arguments[0])'\n")
    }

    /// A machine with no emulator and no credentials (no file, no metadata server): the error says what to do.
    @Test func noCredentialsAnywhereSaysWhatToDo() async throws {
        let home = try CLIEnvironment.emptyHome("nothing")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await Self.run(
            ["get", "fruits/apple"],
            CLIEnvironment.production(home: home.path, ["GCE_METADATA_HOST": CLIEnvironment.deadMetadataHost]))
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "error: unavailable: could not connect: http://127.0.0.1:1/computeMetadata/v1/project/project-id "))
        #expect(
            result.stderr.hasSuffix(
                "(no credentials file was found, so Application Default Credentials asked the metadata server at "
                    + "127.0.0.1:1, which only Google Cloud has: pass --credentials FILE, set "
                    + "GOOGLE_APPLICATION_CREDENTIALS, run 'gcloud auth application-default login', or use an "
                    + "emulator with --emulator HOST:PORT)\n"))
    }

    /// `watch --max-failures N` against nothing: N failed polls (or Listen streams) in a row end it with exit 1,
    /// the first N-1 reported as retries (issue 17: it retried 1, 2, 4, 8 s ... for ever).
    @Test(arguments: ["keys", "listen"])
    func watchGivesUpAfterConsecutiveFailures(mode: String) async throws {
        let result = try await CLIProcess.run([
            "watch", "fruits", "--emulator", "127.0.0.1:1", "--project", "demo-p", "--mode", mode,
            "--max-failures", "2",
        ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout == "")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        // The retry's warning, the hint how to start the emulator (at the first failure), the error, the hint again.
        #expect(lines.count == 4, "\(lines)")
        let retry = mode == "keys" ? "warning: poll failed" : "warning: the Listen stream failed"
        #expect(lines.first?.hasPrefix(retry) == true, "\(lines)")
        #expect(lines.dropFirst().first == CLIFirstHourTests.startTheEmulatorHint("127.0.0.1:1"))
        #expect(lines.dropLast().last?.hasPrefix("error: unavailable: ") == true, "\(lines)")
        #expect(
            lines.dropLast().last?.hasSuffix(" (2 failures in a row: --max-failures 2 ends the watch)") == true,
            "\(lines)")
        #expect(lines.last == CLIFirstHourTests.startTheEmulatorHint("127.0.0.1:1"))
    }
}
