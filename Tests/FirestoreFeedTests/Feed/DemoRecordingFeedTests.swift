import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

/// The demo's change-feed session recorded from the real emulator (`Recordings/demo.json`), replayed
/// offline through the feed: the same writes, the same polls, in recorded order.
@Suite(.timeLimit(.minutes(2))) struct DemoRecordingFeedTests {
    @Test func theRecordedFeedReplaysTheDemoChangesInOrder() async throws {
        let cassette = try ReplayedDemo.cassette("demo.json")
        let transport = ReplayTransport(cassette: cassette, options: .init(ordering: .session), name: "demo.json")
        let db = try ReplayedDemo.client(transport, projectID: "demo-fruits")
        #expect(try await ReplayedDemo.seed(db))
        let pool = PollerPool(clock: ImmediateClock())
        let feed = pool.snapshots(of: ReplayedDemo.favourites(db), policy: PollingPolicy(interval: .milliseconds(200)))
        let taken = try await ReplayedDemo.run(feed, writes: ReplayedDemo.writes(db))
        #expect(taken.changes == ReplayedDemo.expectedChanges)
        #expect(taken.lists == ReplayedDemo.expectedLists)
        let readTimes = taken.readTimes
        #expect(readTimes.count == 6)
        #expect(readTimes == readTimes.sorted())
        // Every write was played; at most a poll the recording caught after the last snapshot is left.
        let lastWrite = cassette.interactions.lastIndex { $0.request.path.hasSuffix(":commit") } ?? -1
        #expect(
            transport.unplayedIndices.allSatisfy { index in
                let path = cassette.interactions[index].request.path
                return index > lastWrite && (path.hasSuffix(":runQuery") || path.hasSuffix(":batchGet"))
            })
    }
}
