import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A feed group's definition is watched (issue 34, item 4). Before, a group document deleted while members ran was
/// created again by the next member to join, with other split points, while the running members kept theirs: 29
/// documents (90+ writes in 30 s) were delivered by no member, with no message. And two processes with one member ID
/// were both silently idle.
@Suite(.timeLimit(.minutes(4))) struct CLIGroupDefinitionLiveTests {
    static func arguments(host: String, project: String, member: String, lease: String = "3") -> [String] {
        [
            "watch", "items", "--emulator", host, "--project", project, "--group", "g", "--shards", "2", "--lease",
            lease, "--renew", "0.5", "--member", member, "--format", "jsonl",
        ]
    }

    /// The read times of a member's lines, in order.
    static func readTimes(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            (try? JSONValue.parse(String(line)))?["readTime"]?.stringValue
        }
    }

    /// Two members run under a writer; the group's document is deleted. Both stop at their next renewal with a
    /// message saying why, and a third member started afterwards (which creates the group again) delivers nothing
    /// read before the last snapshot the other two delivered: no change is delivered under two sets of split points.
    @Test func membersStopWhenTheGroupDocumentIsDeleted() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("group-deleted")
        let db = try Firestore.emulator(host: host, projectID: project)
        for index in 0..<20 {
            try await db.document("items/d\(String(format: "%02d", index))").setData(["n": .integer(0)])
        }
        let a = try CLIProcess(Self.arguments(host: host, project: project, member: "a"))
        let b = try CLIProcess(Self.arguments(host: host, project: project, member: "b"))
        try #require(
            await eventually(seconds: 60) { !a.stdout.lines.isEmpty && !b.stdout.lines.isEmpty },
            "both members deliver")
        let writes = Mutex(0)
        let writer = Task {
            var step = 0
            while !Task.isCancelled {
                _ = try? await db.document("items/d\(String(format: "%02d", step % 20))").setData([
                    "n": .integer(Int64(step))
                ])
                writes.withLock { $0 += 1 }
                step += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { writer.cancel() }
        try await db.document("feedGroups/g").delete()
        let deleted = ContinuousClock.now
        let (aResult, bResult) = (await a.finish(timeout: 60), await b.finish(timeout: 60))
        let stopped = ContinuousClock.now - deleted
        let c = try CLIProcess(Self.arguments(host: host, project: project, member: "c"))
        let cLines = await c.stdout.lines(atLeast: 2, timeout: 60)
        kill(c.process.processIdentifier, SIGTERM)
        let cResult = await c.finish(timeout: 60)
        writer.cancel()
        let before = Self.readTimes(aResult.stdout) + Self.readTimes(bResult.stdout)
        let after = Self.readTimes(cLines.joined(separator: "\n"))
        print(
            "group deleted: a and b stopped within \(stopped); \(writes.withLock { $0 }) writes; a and b delivered "
                + "\(before.count) snapshots before, c \(after.count) after")
        let reason = "feed group feedGroups/g's document was deleted while this member ran"
        #expect(aResult.status != 0 && aResult.stderr.contains(reason), "a:\n\(aResult.stderr)")
        #expect(bResult.status != 0 && bResult.stderr.contains(reason), "b:\n\(bResult.stderr)")
        #expect(after.count >= 2, "c:\n\(cResult.stderr)")
        // RFC 3339 read times of one server sort as text.
        if let last = before.max(), let first = after.min() {
            #expect(last < first, "a and b delivered up to \(last), c from \(first)")
        }
    }

    /// A second process started with the member ID of a live one (which holds the leases) stops at its second
    /// renewal with a message naming the ID; the first goes on.
    @Test func aSecondProcessWithALiveMembersIDSaysSo() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("group-same-member")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("items/a").setData(["n": .integer(1)])
        // A 30 s lease: the first member's leases cannot expire under a starved renewal, so the second never holds
        // one (the one holding no lease is the newcomer, and stops).
        let first = try CLIProcess(Self.arguments(host: host, project: project, member: "x", lease: "30"))
        try #require(await eventually(seconds: 60) { !first.stdout.lines.isEmpty }, "the first delivers")
        let second = try await CLIProcess.run(
            Self.arguments(host: host, project: project, member: "x", lease: "30"), timeout: 60)
        #expect(second.status != 0)
        #expect(
            second.stderr.contains("member x of feed group feedGroups/g is in use by another live process"),
            "\(second.stderr)")
        #expect(first.process.isRunning)
        kill(first.process.processIdentifier, SIGTERM)
        #expect(await first.finish(timeout: 60).status == 0)
    }
}
