import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

/// A feed group's `ShardSnapshot` drives a sink through `FeedSink.apply(_:)`: its shard and generation are the
/// batch's, its changes and resume token are applied, and it is acknowledged only after the commit; a stale
/// generation is refused and not acknowledged.
@Suite(.timeLimit(.minutes(1))) struct FeedSinkShardSnapshotTests {
    typealias F = MirrorFixture

    /// How many times a snapshot was acknowledged.
    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    static func shardSnapshot(
        shard: Int, generation: Int64, put document: Document, read: Int64, acknowledged: Counter,
        wholeShard: ShardRanges? = nil
    ) throws -> ShardSnapshot {
        let query = try Firestore.offline().collection("items").query
        let snapshot = FeedSnapshot.make(
            query: query, documents: [document],
            changes: [ComputedChange(type: .added, document: document, oldIndex: nil, newIndex: 0)],
            readTime: F.time(read), statistics: nil, resumePoint: FeedResumePoint(resumeToken: [7, shard.toByte]))
        return ShardSnapshot(
            shard: shard, generation: generation, snapshot: snapshot, resumedFrom: nil,
            acknowledgement: { acknowledged.add() }, fence: { .seconds(1) }, wholeShard: wholeShard)
    }

    /// Issue 36: a member that starts a shard without a checkpoint (the previous holder was killed before writing
    /// one) gets the shard's whole result, every document `.added`. A document the sink holds from the previous
    /// holder and that was deleted meanwhile is in no change: before, it stayed in the table for good (the group
    /// chaos test found such rows). The whole first snapshot now removes what the sink holds in the shard's range
    /// and the snapshot lacks; other shards' rows, and a row written from a later snapshot, are kept.
    @Test func theWholeFirstSnapshotOfAShardRemovesWhatTheSinkHoldsOfItAndTheSnapshotLacks() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        // Shard 0 is the names before items/m, shard 1 the others.
        let ranges = ShardRanges(splitPoints: [F.prefix + "m"], shards: 2)
        try await mirror.apply(
            F.batch([F.put("a", updated: 10), F.put("b", updated: 10), F.put("z", updated: 10)], read: 11))
        // "c" was written from a snapshot after the one below (read at 30): it stays.
        try await mirror.apply(F.batch([F.put("c", updated: 25)], read: 40, shard: 0, generation: 1))
        let acknowledged = Counter()
        // Without a checkpoint: the shard's whole result at 30 is "a"; "b" was deleted meanwhile.
        try await mirror.apply(
            Self.shardSnapshot(
                shard: 0, generation: 1, put: F.document("a", updated: 20), read: 30, acknowledged: acknowledged,
                wholeShard: ranges))
        #expect(F.rows(path) == ["a \(F.stored(20)) {}", "c \(F.stored(25)) {}", "z \(F.stored(10)) {}"])
        #expect(F.tombstones(path) == ["b \(F.stored(30))"])
        #expect(acknowledged.value == 1)
        // A later snapshot of the shard (not its whole result) removes nothing it does not list.
        try await mirror.apply(
            Self.shardSnapshot(
                shard: 0, generation: 1, put: F.document("d", updated: 45), read: 50, acknowledged: acknowledged))
        #expect(F.rows(path).count == 4)
    }

    @Test func aShardSnapshotIsAppliedThenAcknowledgedAndAStaleOneIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        let acknowledged = Counter()
        try await mirror.apply(
            Self.shardSnapshot(
                shard: 1, generation: 4, put: F.document("a", updated: 10), read: 11, acknowledged: acknowledged))
        #expect(acknowledged.value == 1)
        #expect(
            try await mirror.resumePoint(shard: 1)
                == FeedSinkResumePoint(
                    resumeToken: [7, 1], readTime: F.time(11), generation: 4,
                    query: "projects/p/databases/(default)/documents {\"from\":[{\"collectionId\":\"items\"}]}"))
        let stale = try Self.shardSnapshot(
            shard: 1, generation: 3, put: F.document("b", updated: 20), read: 21, acknowledged: acknowledged)
        let error = await #expect(throws: FeedSinkStaleGeneration.self) { try await mirror.apply(stale) }
        #expect(
            error
                == FeedSinkStaleGeneration(
                    sink: "SQLite mirror \(path) table documents", shard: 1, generation: 3, storedGeneration: 4))
        #expect(acknowledged.value == 1)
        #expect(F.rows(path) == ["a \(F.stored(10)) {}"])
        #expect(F.counts(mirror) == [1, 1, 0, 1])
    }
}

extension Int {
    fileprivate var toByte: UInt8 { UInt8(truncatingIfNeeded: self) }
}
