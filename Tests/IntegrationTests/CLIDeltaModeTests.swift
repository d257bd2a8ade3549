import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `firestore-feed watch --mode delta` and `--verbose`'s billed reads.
@Suite(.timeLimit(.minutes(2))) struct CLIDeltaModeTests {
    @Test(arguments: [
        (
            ["watch", "c", "--emulator", "h:1", "--mode", "fast"],
            "error: --mode \"fast\": expected listen, keys, full or delta"
        ),
        (["watch", "c", "--emulator", "h:1", "--delta-field", "t"], "error: --delta-field needs --mode delta"),
        (
            ["watch", "c", "--emulator", "h:1", "--mode", "delta", "--delta-field", "a..b"],
            "error: --delta-field \"a..b\": "
        ),
    ])
    func usageErrorsExitTwo(arguments: [String], message: String) async throws {
        let result = try await CLIProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message), "stderr: \(result.stderr)")
    }

    /// Delta mode prints the same snapshots as the other modes; `--verbose` prints every poll's statistics with
    /// its billed reads, the first poll's keys scan included.
    @Test func watchInDeltaModePrintsEveryPollsBilledReads() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-delta")
        let db = try Firestore.emulator(host: host, projectID: project).settingServerTimestamp(on: "changed")
        try await db.document("fruits/apple").setData(["name": "Apple"])
        let watcher = try CLIProcess([
            "watch", "fruits", "--emulator", host, "--project", project, "--mode", "delta", "--delta-field",
            "changed", "--format", "jsonl", "--count", "2", "--interval", "0.05", "--verbose",
        ])
        _ = await watcher.stdout.lines(atLeast: 1, timeout: 30)
        try await db.document("fruits/banana").setData(["name": "Banana"])
        let result = await watcher.finish(timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let changes = try result.lines.map { try JSONValue.parse($0)["changes"]?.arrayValue?.compactMap { $0["id"] } }
        #expect(changes == [["apple"], ["banana"]])
        let polls = result.stderr.split(separator: "\n").filter { $0.hasPrefix("poll ") }
        #expect(polls.first?.hasPrefix("poll 1: delta mode: 1 request, ") == true, "stderr: \(result.stderr)")
        #expect(polls.first?.contains("1 billed read, keys scan (first poll)") == true, "stderr: \(result.stderr)")
        #expect(polls.count >= 2, "stderr: \(result.stderr)")
        #expect(polls.dropFirst().allSatisfy { $0.contains("billed reads") }, "stderr: \(result.stderr)")
    }

    /// In listen mode `--verbose` prints each snapshot's documents delivered, which is what Firestore bills.
    @Test func watchInListenModePrintsEachSnapshotsBilledReads() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-listen-meter")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("fruits/apple").setData(["name": "Apple"])
        try await db.document("fruits/banana").setData(["name": "Banana"])
        let watcher = try CLIProcess([
            "watch", "fruits", "--emulator", host, "--project", project, "--format", "jsonl", "--count", "2",
            "--verbose",
        ])
        _ = await watcher.stdout.lines(atLeast: 1, timeout: 30)
        try await db.document("fruits/apple").updateData(["name": "Apple 2"])
        let result = await watcher.finish(timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("snapshot ") }
        #expect(
            lines == [
                "snapshot 1: listen: 2 documents delivered, 2 billed reads",
                "snapshot 2: listen: 1 document delivered, 1 billed read",
            ], "stderr: \(result.stderr)")
    }
}
