import FirestoreFeed
import FirestoreREST
import Testing

/// What keeps a feed group's fencing token and split points single (issue 34, item 4): a generation never repeats,
/// even when a lease document was rewritten by hand; a lease written under another incarnation of the group (its
/// document deleted and created again) gives no checkpoint; a renewal that reads another group document tells the
/// member to stop.
@Suite(.timeLimit(.minutes(1))) struct GroupIncarnationTests {
    static let first = try? Timestamp(seconds: 1_700_000_000, nanos: 0)
    static let second = try? Timestamp(seconds: 1_700_000_600, nanos: 0)

    @Test func aGenerationMovedBackByHandIsNotTakenAgain() {
        // The member saw generation 7; someone then wrote the lease back to generation 2, free.
        var machine = LeaseMachine(member: "a", shards: 1, leaseDuration: .seconds(15))
        machine.observe(
            LeaseTable(shards: [ShardLease(shard: 0, owner: "b", generation: 7, heartbeat: 3)], members: []),
            at: .zero)
        let rewritten = LeaseTable(shards: [ShardLease(shard: 0, generation: 2, heartbeat: 4)], members: [])
        machine.observe(rewritten, at: .seconds(1))
        let plan = machine.plan(rewritten, at: .seconds(1))
        #expect(plan.acquire.map(\.shard) == [0])
        let (writes, outcome) = LeaseWrites.resolve(
            plan, current: [0: rewritten.shards[0]], member: "a", checkpoints: [:])
        #expect(outcome.acquired == [HeldLease(shard: 0, generation: 8)])
        #expect(writes.map(\.generation) == [8])
    }

    @Test func aLeaseOfAnotherIncarnationGivesNoCheckpoint() throws {
        let incarnation = try #require(Self.first)
        let later = try #require(Self.second)
        let checkpoint = ShardCheckpoint(readTime: incarnation, resumeToken: [1])
        var plan = LeasePlan()
        plan.acquire = [(0, LeaseVersion(owner: "", generation: 3, heartbeat: 5))]
        let old = ShardLease(shard: 0, generation: 3, heartbeat: 5, checkpoint: checkpoint, incarnation: incarnation)
        let (writes, _) = LeaseWrites.resolve(
            plan, current: [0: old], member: "a", checkpoints: [:], incarnation: later)
        #expect(
            writes == [ShardLease(shard: 0, owner: "a", generation: 4, heartbeat: 6, incarnation: later)])
        // The same incarnation keeps its checkpoint.
        let (same, _) = LeaseWrites.resolve(
            plan, current: [0: old], member: "a", checkpoints: [:], incarnation: incarnation)
        #expect(same.first?.checkpoint == checkpoint)
    }

    @Test func aRenewalReadingAnotherGroupDocumentNamesWhy() throws {
        let db = try Firestore.emulator(host: "127.0.0.1:1", projectID: "p")
        let document = db.document("feedGroups/g")
        let ranges = ShardRanges(splitPoints: ["projects/p/databases/(default)/documents/items/m"], shards: 2)
        let mine = FeedGroupDefinition(query: "q", ranges: ranges, incarnation: Self.first)
        #expect(mine.mismatch(mine, document: document) == nil)
        #expect(
            mine.mismatch(nil, document: document)
                == "feed group feedGroups/g's document was deleted while this member ran")
        let recreated = FeedGroupDefinition(query: "q", ranges: ranges, incarnation: Self.second)
        #expect(
            mine.mismatch(recreated, document: document)
                == "feed group feedGroups/g was created again (at 2023-11-14T22:23:20Z; this member's group was "
                + "created at 2023-11-14T22:13:20Z) while this member ran")
        let resplit = FeedGroupDefinition(
            query: "q", ranges: ShardRanges(splitPoints: [], shards: 1), incarnation: Self.first)
        #expect(
            mine.mismatch(resplit, document: document)
                == "feed group feedGroups/g's document was changed (its query, shards or split points) while this "
                + "member ran")
    }
}
