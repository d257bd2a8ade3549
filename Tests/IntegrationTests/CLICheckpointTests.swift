import FirestoreFeed
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
                == "error: data-loss: checkpoint store \(path): not an SQLite database (reading the application ID: "
                + "file is not a database); refusing to use it\n")
    }

    /// Issue 24: one flipped bit of the key in the `feeds` index page (page 3 of a fresh store). Before, the next
    /// watch found no checkpoint, printed every document again as added, exited 0 and wrote a second row for the
    /// key; now it stops with data-loss naming the file, prints nothing and leaves the file as it was.
    @Test func aFlippedBitInTheKeyIndexStopsTheWatch() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-checkpoint-flip")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("fruits/apple").setData(["kcal": 52])
        let path = NSTemporaryDirectory() + "cli-checkpoint-\(UUID().uuidString).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let watch = [
            "watch", "fruits", "--emulator", host, "--project", project, "--mode", "keys", "--format", "jsonl",
            "--count", "1", "--checkpoint", path, "--checkpoint-key", "fruit-feed",
        ]
        let first = try await CLIProcess.run(watch)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        // The watch left its commits in the WAL; the last connection to close folds them into the file.
        _ = try await FeedCheckpointStore(path: path).keys()
        #expect(await eventually(seconds: 30) { !FileManager.default.fileExists(atPath: path + "-wal") })
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let key = Array("fruit-feed".utf8)
        let start = try #require((8192...(12288 - key.count)).first { Array(bytes[$0..<($0 + key.count)]) == key })
        bytes[start + 1] ^= 0x20  // "fRuit-feed"
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let second = try await CLIProcess.run(watch)
        #expect(second.status == 1)
        #expect(second.stdout == "")
        #expect(
            second.stderr
                == "error: data-loss: checkpoint store \(path): the file is damaged (truncated or corrupted): row 1 "
                + "missing from index sqlite_autoindex_feeds_1\n")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    }
}
