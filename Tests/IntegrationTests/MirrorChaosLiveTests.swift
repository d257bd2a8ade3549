import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

#if canImport(Glibc)
    import Glibc
#endif

/// `firestore-feed mirror --sqlite` under a writer (creates, updates and deletes, a few hot documents), SIGKILLed at
/// random moments 20 times (during the load at one read time, during the Listen tail, inside transactions) and
/// restarted each time: an audit trigger in the file records every version the mirror wrote, and none is written
/// twice or after a newer one of its document; at the end (SIGTERM: exit 0) the table equals the query. The kills'
/// moments are random: where each lands is printed, not asserted (a loaded machine moves them).
@Suite(.timeLimit(.minutes(5))) struct MirrorChaosLiveTests {
    static let kills = Int(ProcessInfo.processInfo.environment["FIRESTORE_FEED_MIRROR_CHAOS_KILLS"] ?? "") ?? 20

    /// Adds the audit: `audit (seq, name, update_time)`, one row per version written to `table` (insert or update) and
    /// one per removal (`update_time` empty).
    static func addAudit(path: String, table: String) throws {
        let connection = try SQLiteConnection(path: path, label: "chaos audit")
        try connection.execute(
            """
            CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, update_time TEXT NOT NULL);
            CREATE TRIGGER audit_insert AFTER INSERT ON "\(table)" BEGIN
                INSERT INTO audit (name, update_time) VALUES (new.name, new.update_time);
            END;
            CREATE TRIGGER audit_update AFTER UPDATE ON "\(table)" BEGIN
                INSERT INTO audit (name, update_time) VALUES (new.name, new.update_time);
            END;
            CREATE TRIGGER audit_delete AFTER DELETE ON "\(table)" BEGIN
                INSERT INTO audit (name, update_time) VALUES (old.name, '');
            END;
            """, doing: "adding the audit")
    }

    /// The audit's rows, in the order they were written.
    static func audit(path: String) throws -> [(name: String, updateTime: String)] {
        let connection = try SQLiteConnection(path: path, label: "chaos audit")
        return try connection.rows("SELECT name, update_time FROM audit ORDER BY seq", doing: "reading the audit")
            .compactMap { row in row.count == 2 ? (row[0], row[1]) : nil }
    }

    @Test func killedTwentyTimesTheMirrorAppliesEachVersionOnceAndEndsEqualToTheQuery() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("mirror-chaos")
        let db = try Firestore.emulator(host: host, projectID: project)
        let items = db.collection("items")
        // 2,000 documents in pages of 50: the load takes 40 transactions, so the early kills land inside it.
        for start in stride(from: 0, to: 2_000, by: 200) {
            let batch = db.batch()
            for index in start..<(start + 200) {
                try batch.setData(
                    ["v": .integer(0), "i": .integer(Int64(index))],
                    forDocument: items.document(String(format: "d%03d", index)))
            }
            _ = try await batch.commit()
        }
        let path = NSTemporaryDirectory() + "mirror-chaos-\(UUID().uuidString).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        do { _ = try await SQLiteMirror(path: path, table: "items") }
        try Self.addAudit(path: path, table: "items")

        // The writer: hot documents d000...d007 most of the time, any other sometimes; a fifth of the writes delete,
        // and a deleted document is created again by a later write.
        let writes = Mutex(0)
        let writing = Task {
            var version: Int64 = 1
            while !Task.isCancelled {
                let index = Int.random(in: 0..<4) == 0 ? Int.random(in: 0..<2_020) : Int.random(in: 0..<8)
                let document = items.document(String(format: "d%03d", index))
                do {
                    if Int.random(in: 0..<5) == 0 {
                        try await document.delete()
                    } else {
                        try await document.setData(["v": .integer(version), "i": .integer(Int64(index))])
                    }
                    writes.withLock { $0 += 1 }
                } catch {
                    // A write the emulator refused under load is simply not made.
                }
                version += 1
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...30)))
            }
        }
        defer { writing.cancel() }

        let arguments = [
            "mirror", "items", "--emulator", host, "--project", project, "--sqlite", path, "--table", "items",
            "--page-size", "50",
        ]
        var landed: [String] = []
        for kill in 0..<Self.kills {
            let process = try CLIProcess(arguments)
            // The first five kills within 0.5 s of the start (in its load, or before it), the others within 2 s.
            try await Task.sleep(for: .milliseconds(kill < 5 ? Int.random(in: 50...500) : Int.random(in: 200...2_000)))
            let before = (try? await SQLiteMirror(path: path, table: "items").resumePoint(shard: 0)) ?? nil
            Glibc.kill(process.process.processIdentifier, SIGKILL)
            let status = await process.process.exitStatus(timeout: 30)
            landed.append(
                "\(kill): \(before == nil ? "before the first page" : before?.loadCursor != nil ? "loading" : "tail") "
                    + "(status \(status))")
        }
        writing.cancel()
        _ = await writing.value

        // The last run: until the table equals the query, then SIGTERM, which ends it with the batch in hand.
        let last = try CLIProcess(arguments)
        let query = items.query
        let reader = try await SQLiteMirror(path: path, table: "items")
        let converged = await SQLiteMirrorLiveTests.converges(reader, to: query)
        if !converged {
            let direct = try await query.getDocuments().documents.compactMap(\.document)
            let held = try await reader.documents()
            let expected = Dictionary(direct.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let got = Dictionary(held.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let missing = expected.keys.filter { got[$0] == nil }.sorted()
            let extra = got.keys.filter { expected[$0] == nil }.sorted()
            let differing = expected.filter { got[$0.key] != nil && got[$0.key] != $0.value }.map {
                "\($0.key): held \(got[$0.key]?.updateTime?.rfc3339 ?? "-") \(got[$0.key]?.fields ?? [:]), query "
                    + "\($0.value.updateTime?.rfc3339 ?? "-") \($0.value.fields)"
            }
            print(
                "mirror chaos: missing \(missing.suffix(20)), extra \(extra.suffix(20)), "
                    + "differing \(differing.prefix(10))")
            let tombstones = try SQLiteConnection(path: path, label: "chaos audit").rows(
                "SELECT name, update_time, removed_at FROM items_tombstones", doing: "reading the tombstones")
            let stones = Dictionary(tombstones.map { ($0[0], $0.dropFirst().joined(separator: " removed at ")) }) {
                first, _ in first
            }
            print(
                "mirror chaos: \(missing.count) missing, the first: "
                    + missing.prefix(3).map { "\($0) (tombstone: \(stones[$0] ?? "none"))" }.joined(separator: ", "))
            print("mirror chaos: resume point \(String(describing: try await reader.resumePoint(shard: 0)))")
        }
        last.process.end(grace: 30)
        let result = await last.finish(timeout: 60)
        print("mirror chaos: \(Self.kills) kills, \(writes.withLock { $0 }) writes; kills landed: \(landed)")
        #expect(converged, "the table never equalled the query; the last run's stderr: \(result.stderr.suffix(2_000))")
        #expect(result.status == 0, "SIGTERM ends the mirror with exit 0; stderr: \(result.stderr.suffix(2_000))")

        let audit = try Self.audit(path: path)
        // Applied twice: a version written again while the row held it (no removal between). Older after newer: a
        // version before the last one written for its name. A document that left and came back unchanged is written
        // again after its removal, and counts as neither.
        var latest: [String: String] = [:]
        var held: Set<String> = []
        var twice: [String] = []
        var regressions: [String] = []
        var versions = 0
        for (name, updateTime) in audit {
            if updateTime.isEmpty {
                held.remove(name)
                continue
            }
            versions += 1
            if let last = latest[name] {
                if updateTime < last { regressions.append("\(name) \(updateTime) after \(last)") }
                if updateTime == last, held.contains(name) { twice.append("\(name) \(updateTime)") }
            }
            latest[name] = updateTime
            held.insert(name)
        }
        print(
            "mirror chaos: \(versions) versions applied, \(audit.count - versions) removals, \(twice.count) twice, "
                + "\(regressions.count) older after newer")
        #expect(twice == [])
        #expect(regressions == [])
        #expect(versions >= 2_000)
    }
}
