import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Synchronization
import Testing

/// Issue 27: a feed group member run as a service (`FeedGroup.run(_:)`, `service(_:)`). Cancelling the task that
/// runs it while the handler holds a shard snapshot lets the handler finish, acknowledges the snapshot, writes every
/// shard's checkpoint and releases every lease before `run` returns normally; a member started afterwards takes the
/// shards and delivers exactly what changed after the last handled snapshots.
@Suite(.timeLimit(.minutes(3))) struct FeedGroupServiceLiveTests {
    /// What a member's handler saw: every change as "shard type id", how many snapshots, and whether its call for
    /// the third snapshot ran to its end.
    final class Handled: Sendable {
        let state = Mutex<(changes: [String], count: Int, finishedThird: Bool)>(([], 0, false))

        func note(_ shard: ShardSnapshot) -> Int {
            state.withLock { state in
                state.changes += shard.snapshot.documentChanges.map {
                    "\(shard.shard) \($0.type) \($0.document.documentID)"
                }
                state.count += 1
                return state.count
            }
        }
    }

    @Test func aCancelledRunFinishesTheSnapshotInHandWritesTheCheckpointsAndReleasesTheLeases() async throws {
        let db = try LiveFirestore.make("feed-group-service")
        let orders = db.collection("orders")
        for id in ["a", "b", "c", "d"] { try await orders.document(id).setData(["n": 1]) }
        let first = Handled()
        let running = Task {
            try await FeedGroup(orders, name: "service", options: FeedGroupLiveTests.options("first")).run { shard in
                // 4 documents in 3 shards (split at b and c): the third snapshot is the last of the first ones.
                guard first.note(shard) == 3 else { return }
                // The test cancels the run now; the handler's own work goes on to its end.
                try await Task.sleep(for: .milliseconds(500))
                first.state.withLock { $0.finishedThird = true }
            }
        }
        #expect(await eventually(seconds: 60) { first.state.withLock { $0.count } == 3 })
        running.cancel()
        try await running.value
        #expect(first.state.withLock { $0.finishedThird })
        #expect(first.state.withLock { $0.changes.sorted() } == ["0 added a", "1 added b", "2 added c", "2 added d"])
        let leases = try await db.collection("feedGroups").document("service").collection("shards").getDocuments()
        #expect(leases.documents.map { $0.get("owner") } == [.string(""), .string(""), .string("")])

        // Changes after the last handled snapshots; a new member resumes every shard from its checkpoint.
        try await orders.document("a").setData(["n": 2])
        try await orders.document("e").setData(["n": 1])
        let second = Handled()
        let resumed = Task {
            try await FeedGroup(orders, name: "service", options: FeedGroupLiveTests.options("second")).run { shard in
                _ = second.note(shard)
            }
        }
        // Shards 0 and 1 at once; shard 2 once the first member is seen gone, a lease length after it left (its
        // record counts it live until then, and a member takes only its share of the members it counts live).
        let resumedBoth = await eventually(seconds: FeedGroupLiveTests.lease + 60) {
            second.state.withLock { $0.changes.count } >= 2
        }
        #expect(resumedBoth)
        try await Task.sleep(for: .seconds(1))
        resumed.cancel()
        try await resumed.value
        #expect(second.state.withLock { $0.changes.sorted() } == ["0 modified a", "2 added e"])
    }
}
