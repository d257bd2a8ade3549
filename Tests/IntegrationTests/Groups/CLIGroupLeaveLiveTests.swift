import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `watch --group` leaves its group on the way out, whether `--count` ends it or SIGTERM does: the acknowledged
/// shard's checkpoint is written and every lease is released (owner empty) before the process exits 0, so the next
/// member takes the shards at its next renewal, not after the lease expires. Before the fix the stream's end and the
/// command's own `leave()` raced: the second call returned while the first one's release was under way, and the
/// process exited with both leases held and no checkpoint (seen by a new user's pass).
@Suite(.timeLimit(.minutes(3))) struct CLIGroupLeaveLiveTests {
    /// The owner and checkpoint read time of each of the group's 2 shards.
    static func leases(_ db: Firestore, group: String) async throws -> [(owner: String, readTime: String?)] {
        var result: [(owner: String, readTime: String?)] = []
        for shard in 0..<2 {
            let data = try #require(try await db.document("feedGroups/\(group)/shards/\(shard)").getDocument().data())
            guard case .string(let owner)? = data["owner"] else {
                throw FirestoreError(code: .dataLoss, message: "no owner")
            }
            var readTime: String?
            if case .timestamp(let time)? = data["readTime"] { readTime = time.rfc3339 }
            result.append((owner, readTime))
        }
        return result
    }

    static func seeded(_ name: String) async throws -> (host: String, project: String, db: Firestore) {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID(name)
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("items/a").setData(["n": .integer(1)])
        try await db.document("items/m").setData(["n": .integer(2)])
        return (host, project, db)
    }

    @Test func countEndsTheWatchWithTheLeasesReleasedAndTheCheckpointWritten() async throws {
        let (host, project, db) = try await Self.seeded("group-leave-count")
        let result = try await CLIProcess.run([
            "watch", "items", "--emulator", host, "--project", project, "--group", "g", "--shards", "2", "--member",
            "m1", "--count", "1", "--format", "jsonl",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try JSONValue.parse(Data(result.stdout.utf8))
        guard case .integer(let shard)? = line["shard"], case .string(let readTime)? = line["readTime"] else {
            Issue.record("no shard line: \(result.stdout)")
            return
        }
        #expect(result.stderr.contains("note: released the lease of shard 0 (generation 1)"), "\(result.stderr)")
        #expect(result.stderr.contains("note: released the lease of shard 1 (generation 1)"), "\(result.stderr)")
        let leases = try await Self.leases(db, group: "g")
        #expect(leases.map(\.owner) == ["", ""])
        #expect(leases[Int(shard)].readTime == readTime)
    }

    @Test func sigtermEndsTheWatchWithTheLeasesReleased() async throws {
        let (host, project, db) = try await Self.seeded("group-leave-term")
        let watch = try CLIProcess([
            "watch", "items", "--emulator", host, "--project", project, "--group", "g", "--shards", "2", "--member",
            "m1", "--format", "jsonl",
        ])
        let lines = await watch.stdout.lines(atLeast: 2, timeout: 60)
        #expect(lines.count == 2)
        kill(watch.process.processIdentifier, SIGTERM)
        // A hang guard: the leave is one commit, which a loaded machine may take seconds to make.
        let result = await watch.finish(timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let leases = try await Self.leases(db, group: "g")
        #expect(leases.map(\.owner) == ["", ""])
        #expect(leases.allSatisfy { $0.readTime != nil })
    }
}
