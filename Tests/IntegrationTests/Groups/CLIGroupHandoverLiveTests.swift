import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A graceful leave hands the shards over at once (issue 34, item 5): a member that leaves releases its leases and
/// deletes its record in one commit, and a waiting member, listening to the group's free leases, takes them then
/// rather than at its next renewal. Before, the other member took them about 20 s later (its renewal, and the
/// leaving member counted live until its heartbeat was seen unchanged for a lease length), as after a kill -9.
@Suite(.timeLimit(.minutes(3))) struct CLIGroupHandoverLiveTests {
    @Test func aReleasedShardIsTakenByTheWaitingMemberWithoutWaitingForItsRenewal() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("group-handover")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("items/a").setData(["n": .integer(1)])
        let common = [
            "watch", "items", "--emulator", host, "--project", project, "--group", "g", "--shards", "1", "--format",
            "jsonl",
        ]
        let a = try CLIProcess(common + ["--member", "a"])
        try #require(await a.stdout.lines(atLeast: 1, timeout: 60).count == 1, "a delivers the shard")
        // b renews only every 1,800 s (and would see a's lease expire after 3,600 s): taking the shard within the
        // test's time can only come from the released lease it listens for.
        let b = try CLIProcess(common + ["--member", "b", "--lease", "3600", "--renew", "1800"])
        // b has joined once its first renewal ran: its member record exists.
        try #require(
            await eventuallyAsync(seconds: 60) {
                (try? await db.document("feedGroups/g/members/b").getDocument().exists) == true
            }, "b joined")
        kill(a.process.processIdentifier, SIGTERM)
        let released = ContinuousClock.now
        let aResult = await a.finish(timeout: 60)
        let delivered = await b.stdout.lines(atLeast: 1, timeout: 60)
        let handover = ContinuousClock.now - released
        kill(b.process.processIdentifier, SIGTERM)
        let bResult = await b.finish(timeout: 60)
        print("handover after SIGTERM: b's first delivery \(handover) after it")
        #expect(aResult.status == 0, "a:\n\(aResult.stderr)")
        #expect(delivered.count == 1, "b:\n\(bResult.stderr)")
        #expect(bResult.stderr.contains("generation 2"), "b took the shard at generation 2:\n\(bResult.stderr)")
        #expect((try? await db.document("feedGroups/g/members/a").getDocument().exists) == false, "a's record")
    }
}
