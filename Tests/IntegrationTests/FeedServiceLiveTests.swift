import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// Issue 27: a checkpointed feed run as a service (`query.service(checkpoint:key:handler:)`, `FeedService.run()`,
/// swift-service-lifecycle's `Service` shape). Cancelling the task that runs it while the handler holds a snapshot
/// lets the handler finish (it does not see the cancellation), acknowledges the snapshot, writes the checkpoint,
/// releases the key and returns normally; a feed started again from a reopened store begins exactly after the
/// last handled snapshot.
@Suite(.timeLimit(.minutes(2))) struct FeedServiceLiveTests {
    /// What the handler saw: each snapshot's changes, and whether its call for the second one ran to its end.
    final class Handled: Sendable {
        let state = Mutex<(changes: [[String]], finishedSecond: Bool)>(([], false))

        /// Notes a snapshot's changes; returns how many snapshots were handled with it.
        func note(_ snapshot: QuerySnapshot) -> Int {
            state.withLock { state in
                state.changes.append(FeedServiceLiveTests.changeList(snapshot))
                return state.changes.count
            }
        }

        var count: Int { state.withLock { $0.changes.count } }
    }

    static func changeList(_ snapshot: QuerySnapshot?) -> [String] {
        snapshot?.documentChanges.map { "\($0.type.rawValue) \($0.document.documentID)" } ?? ["no snapshot"]
    }

    @Test(arguments: ["listen", "keys"])
    func aCancelledRunFinishesTheSnapshotInHandAndLeavesTheCheckpointAtIt(source name: String) async throws {
        let db = try LiveFirestore.make("feed-service-\(name)")
        let source: FeedSource = name == "listen" ? .listen : .poll(.keys)
        let path = CheckpointLiveTests.temporaryPath()
        defer { CheckpointLiveTests.remove(path) }
        for id in ["apple", "banana"] { try await db.document("fruits/\(id)").setData(["name": .string(id)]) }
        let fruits = db.collection("fruits").order(by: "name")
        let handled = Handled()
        do {
            let store = try await FeedCheckpointStore(path: path)
            let feed = fruits.service(source: source, interval: .milliseconds(100), checkpoint: store, key: "fruits") {
                snapshot in
                guard handled.note(snapshot) == 2 else { return }
                // The test cancels the run now; the handler's own work goes on to its end.
                try await Task.sleep(for: .milliseconds(500))
                handled.state.withLock { $0.finishedSecond = true }
            }
            let running = Task { try await feed.run() }
            #expect(await eventually(seconds: 30) { handled.count == 1 })
            try await db.document("fruits/cherry").setData(["name": "cherry"])
            #expect(await eventually(seconds: 30) { handled.count == 2 })
            running.cancel()
            try await running.value
            #expect(handled.state.withLock { $0.finishedSecond })
            #expect(!store.isFeedRunning(key: "fruits"))
        }
        #expect(handled.state.withLock { $0.changes } == [["added apple", "added banana"], ["added cherry"]])

        // Changes after the last handled snapshot, then the feed again from the store reopened.
        try await db.document("fruits/date").setData(["name": "date"])
        try await db.document("fruits/apple").delete()
        let reopened = try await FeedCheckpointStore(path: path)
        let stored = try #require(try await reopened.checkpoint(key: "fruits"))
        #expect(stored.documents.map(\.id) == ["apple", "banana", "cherry"])
        var resumed = fruits.snapshots(
            source: source, interval: .milliseconds(100), checkpoint: reopened, key: "fruits"
        )
        .makeAsyncIterator()
        let first = try await resumed.next()
        #expect(Self.changeList(first) == ["removed apple", "added date"])
        #expect(first?.documents.map(\.documentID) == ["banana", "cherry", "date"])
    }
}
