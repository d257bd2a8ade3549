import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A store that may hold a key's checkpoint but cannot read it is refused, never read as holding none (issue 24:
/// one flipped bit in the `feeds` index page made `watch` re-deliver every document as added, exit 0 and write a
/// second row with the same key). No network.
@Suite(.timeLimit(.minutes(2))) struct CheckpointDamageTests {
    /// A store at a fresh path holding key `items` (3 documents), with the WAL folded into the file.
    static func storeWithItems() async throws -> String {
        let path = CheckpointFiles.temporaryPath()
        let store = try await FeedCheckpointStore(path: path)
        _ = try await FeedCheckpointStoreTests.checkpointFirstSnapshot(
            FeedCheckpointStoreTests.seeded(3), store: store, key: "items")
        CheckpointFiles.sql(path, "SELECT 1")
        return path
    }

    /// The issue's case: one bit of the key in the index page. Before issue 24 the store opened, a feed on the key
    /// got the three documents again as added, and its write left two rows for `items`.
    @Test func aFlippedBitInTheFeedsIndexIsRefusedNotReadAsEmpty() async throws {
        let path = try await Self.storeWithItems()
        defer { CheckpointFiles.remove(path) }
        let indexPage = try #require(
            CheckpointFiles.sql(path, "SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_feeds_1'")
                .flatMap { Int($0) })
        #expect(indexPage == 3)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let page = (indexPage - 1) * 4096..<indexPage * 4096
        let key = Array("items".utf8)
        let start = try #require(page.first { Array(bytes[$0..<($0 + key.count)]) == key })
        bytes[start + 2] ^= 0x20  // "itEms"
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        do {
            let store = try await FeedCheckpointStore(path: path)
            let query = try FeedCheckpointStoreTests.seeded(3).firestore().collection("items").query
            let clock = ManualClock()
            let feed = GatedConsumer {
                PollerPool(clock: clock).snapshots(
                    of: query, mode: .keys, checkpoint: store, key: "items", onEvent: $0)
            }
            _ = await feed.waitFor(1, clock: clock)
            try? await store.acknowledge(key: "items")
            feed.leave()
            _ = await store.waitUntilReleased("items")
            Issue.record("the damaged store opened; the feed got \(feed.last?.changeList ?? [])")
        } catch {
            let error = try #require(error as? FirestoreError)
            #expect(error.code == .dataLoss)
            #expect(
                error.message
                    == "checkpoint store \(path): the file is damaged (truncated or corrupted): row 1 missing from "
                    + "index sqlite_autoindex_feeds_1", "\(error)")
        }
        #expect(CheckpointFiles.sql(path, "SELECT count(*) FROM feeds NOT INDEXED WHERE key = 'items'") == "1")
    }

    /// Document rows of a key without its feed row: before issue 24, read as no checkpoint.
    @Test func documentRowsWithoutTheirFeedRowAreRefused() async throws {
        let path = try await Self.storeWithItems()
        defer { CheckpointFiles.remove(path) }
        CheckpointFiles.sql(path, "DELETE FROM feeds WHERE key = 'items'")
        let store = try await FeedCheckpointStore(path: path)
        await #expect(
            throws: FirestoreError(
                code: .dataLoss,
                message: "checkpoint store \(path): key \"items\": 3 document rows and no feed row; the file is "
                    + "damaged, refusing to resume")
        ) { _ = try await store.checkpoint(key: "items") }
        #expect(try await store.checkpoint(key: "other") == nil)
    }

    /// A feed row that fails its checksum may be any key's: every key without a readable row is refused, and so is
    /// the list of keys (before issue 24: no checkpoint, and `["items"]`).
    @Test func aFeedRowThatFailsItsChecksumRefusesKeysWithoutARow() async throws {
        let path = try await Self.storeWithItems()
        defer { CheckpointFiles.remove(path) }
        CheckpointFiles.sql(path, "UPDATE feeds SET source = 'full' WHERE key = 'items'")
        let store = try await FeedCheckpointStore(path: path)
        let refusal = FirestoreError(
            code: .dataLoss,
            message: "checkpoint store \(path): the feed row of key \"items\" fails its checksum; the file is "
                + "damaged, refusing to read it")
        await #expect(throws: refusal) { _ = try await store.checkpoint(key: "other") }
        await #expect(throws: refusal) { _ = try await store.keys() }
        await #expect(
            throws: FirestoreError(
                code: .dataLoss,
                message: "checkpoint store \(path): key \"items\": the feed row's checksum does not match; the file "
                    + "is damaged, refusing to resume")
        ) { _ = try await store.checkpoint(key: "items") }
    }
}
