import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `firestore-feed watch --checkpoint FILE [--checkpoint-key KEY]`: a restarted watch prints only what changed
/// meanwhile, marked as resumed; a damaged store is an error naming the file.
@Suite(.timeLimit(.minutes(2))) struct CLICheckpointTests {
    @Test(arguments: [
        (
            ["watch", "c", "--emulator", "h:1", "--checkpoint-key", "k"],
            "error: --checkpoint-key needs --checkpoint FILE"
        ),
        (["watch", "c", "--emulator", "h:1", "--checkpoint", ""], "error: --checkpoint needs a file name"),
        (
            ["watch", "c", "--emulator", "h:1", "--checkpoint", "f", "--checkpoint-key", ""],
            "error: --checkpoint-key needs a key"
        ),
    ])
    func usageErrorsExitTwo(arguments: [String], message: String) async throws {
        let result = try await CLIProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message), "stderr: \(result.stderr)")
    }

    @Test(arguments: ["keys", "listen"])
    func aRestartedWatchPrintsOnlyWhatChangedMeanwhile(mode: String) async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-checkpoint-\(mode)")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("fruits/apple").setData(["kcal": 52])
        try await db.document("fruits/banana").setData(["kcal": 89])
        let path = NSTemporaryDirectory() + "cli-checkpoint-\(UUID().uuidString).sqlite"
        defer {
            let folder = (path as NSString).deletingLastPathComponent
            let base = (path as NSString).lastPathComponent
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(base)
            {
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
        let watch = [
            "watch", "fruits", "--emulator", host, "--project", project, "--mode", mode, "--order-by", "kcal",
            "--format", "jsonl", "--count", "1", "--checkpoint", path,
        ]
        let first = try await CLIProcess.run(watch)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let initial = try JSONValue.parse(first.lines.first ?? "")
        #expect(initial["changes"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["apple", "banana"])
        #expect(initial["resumed"] == nil)

        try await db.document("fruits/apple").setData(["kcal": 95])
        try await db.document("fruits/cherry").setData(["kcal": 50])
        try await db.document("fruits/banana").delete()
        let second = try await CLIProcess.run(watch)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        let resumed = try JSONValue.parse(second.lines.first ?? "")
        let changes = resumed["changes"]?.arrayValue?.map { change in
            "\(change["type"]?.stringValue ?? "?") \(change["id"]?.stringValue ?? "?")"
        }
        #expect(changes == ["removed banana", "added cherry", "modified apple"])
        #expect(resumed["resumed"] == true)
        #expect(resumed["size"] == 2)
        #expect(second.stderr.contains("note: resumed from the checkpoint of key \""), "stderr: \(second.stderr)")

        // Nothing changed: the next run prints an empty resumed snapshot, in text too.
        let text = try await CLIProcess.run(
            watch.filter { $0 != "jsonl" }.map { $0 == "--format" ? "--format=text" : $0 })
        #expect(text.status == 0, "stderr: \(text.stderr)")
        #expect(text.lines.first?.hasSuffix(": 2 documents, 0 changes since the checkpoint") == true, "\(text.stdout)")
    }

    @Test func aDamagedStoreIsAnErrorNamingTheFile() async throws {
        let path = NSTemporaryDirectory() + "cli-checkpoint-\(UUID().uuidString).sqlite"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: path))
        let result = try await CLIProcess.run([
            "watch", "fruits", "--emulator", "127.0.0.1:1", "--project", "p", "--checkpoint", path,
        ])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: data-loss: checkpoint store \(path): not an SQLite database (the file does not start with "
                + "\"SQLite format 3\"); refusing to use it\n")
    }
}
