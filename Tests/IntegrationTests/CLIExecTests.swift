import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `watch --exec`: the command runs once per snapshot with the snapshot's JSON line on its stdin; a failure is run
/// again with back-off and the checkpoint moves only after a success; `--exec-timeout` kills a run that hangs; and
/// SIGTERM ends a checkpointed watch after the snapshot in hand, exit 0, resuming after it.
@Suite(.timeLimit(.minutes(3))) struct CLIExecTests {
    static func temporary(_ name: String) -> String { NSTemporaryDirectory() + "exec-\(UUID().uuidString)-\(name)" }

    @Test func eachSnapshotIsRunOnceWithItsLineOnStdin() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-exec")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("k/one").setData(["v": 1])
        let out = Self.temporary("out")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await CLIProcess.run([
            "watch", "k", "--emulator", host, "--project", project, "--count", "1", "--exec", "cat >> \(out)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "")
        let written = try String(contentsOfFile: out, encoding: .utf8)
        let line = try JSONValue.parse(Data(written.utf8))
        #expect(line["size"] == 1)
        guard case .array(let changes)? = line["changes"], let change = changes.first else {
            Issue.record("no changes in \(written)")
            return
        }
        #expect(change["id"] == "one")
        #expect(change["type"] == "added")
        #expect(written.hasSuffix("}\n"))
    }

    @Test func aFailingCommandIsRunAgainAndTheCheckpointWaitsForItsSuccess() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-exec-retry")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("k/one").setData(["v": 1])
        let flag = Self.temporary("flag")
        let out = Self.temporary("out")
        let store = Self.temporary("store.sqlite")
        defer { for path in [flag, out, store] { try? FileManager.default.removeItem(atPath: path) } }
        let command = "test -e \(flag) && cat >> \(out)"
        let first = try CLIProcess([
            "watch", "k", "--emulator", host, "--project", project, "--count", "1", "--checkpoint", store,
            "--interval", "0.05", "--exec", command,
        ])
        // Two failures reported, then the flag appears and the run succeeds.
        let failures = await first.stderr.lines(atLeast: 2, timeout: 30)
        #expect(
            failures.prefix(2).allSatisfy {
                $0.hasPrefix("warning: --exec failed (exit status 1); the snapshot is not acknowledged")
            })
        _ = FileManager.default.createFile(atPath: flag, contents: Data())
        let result = await first.finish(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).components(separatedBy: "\n").count == 2)
        // Acknowledged: a restart resumes after it (nothing changed: a resumed snapshot with no changes).
        let again = try await CLIProcess.run([
            "watch", "k", "--emulator", host, "--project", project, "--count", "1", "--checkpoint", store,
            "--format", "jsonl",
        ])
        let line = try JSONValue.parse(Data((again.lines.first ?? "").utf8))
        #expect(line["changes"] == [])
        #expect(line["resumed"] == true)
        #expect(line["size"] == 1)
    }

    @Test func aRunThatOutlivesTheTimeoutIsKilledAndFails() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-exec-timeout")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("k/one").setData(["v": 1])
        let child = try CLIProcess([
            "watch", "k", "--emulator", host, "--project", project, "--exec", "sleep 30", "--exec-timeout", "0.2",
        ])
        let lines = await child.stderr.lines(atLeast: 1, timeout: 30)
        #expect(lines.first?.hasPrefix("warning: --exec failed (timed out after 0.2 seconds and was killed)") == true)
        kill(child.process.processIdentifier, SIGTERM)
        let result = await child.finish(timeout: 30)
        #expect(result.status == 0)
        #expect(
            result.stderr.hasSuffix(
                "note: stopping with the snapshot not acknowledged: the next start delivers it again\n"),
            "\(result.stderr)")
    }

    @Test func sigtermEndsACheckpointedWatchAfterTheSnapshotInHand() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-exec-term")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("k/one").setData(["v": 1])
        let store = Self.temporary("store.sqlite")
        defer { try? FileManager.default.removeItem(atPath: store) }
        let child = try CLIProcess([
            "watch", "k", "--emulator", host, "--project", project, "--checkpoint", store, "--format", "jsonl",
        ])
        #expect(await child.stdout.lines(atLeast: 1, timeout: 30).count == 1)
        try await db.document("k/two").setData(["v": 2])
        #expect(await child.stdout.lines(atLeast: 2, timeout: 30).count == 2)
        kill(child.process.processIdentifier, SIGTERM)
        let result = await child.finish(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        // Both printed snapshots were acknowledged: the restart lists nothing new.
        let again = try await CLIProcess.run([
            "watch", "k", "--emulator", host, "--project", project, "--count", "1", "--checkpoint", store,
            "--format", "jsonl",
        ])
        let line = try JSONValue.parse(Data((again.lines.first ?? "").utf8))
        #expect(line["changes"] == [])
        #expect(line["size"] == 2)
        #expect(line["resumed"] == true)
    }
}
