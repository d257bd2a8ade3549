import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreFeed
@testable import FirestorePubSub

/// A feed group's publish keeps the names it published past a shard's stored checkpoint beside the shard's lease
/// (on the Firestore emulator), and the shard's next owner publishes a removal for each one its first snapshot
/// lacks: the lost removals `PublishGroupChaosLiveTests` found (a document added by a snapshot the killed owner
/// published after the checkpoint, deleted before the takeover).
@Suite(.timeLimit(.minutes(2))) struct ShardPublishPendingNamesLiveTests {
    static let prefix = "projects/p/databases/(default)/documents/items/"

    static func time(_ seconds: Int64) -> Timestamp {
        (try? Timestamp(seconds: 1_767_225_600 + seconds, nanos: 0)) ?? .minimum
    }

    static func document(_ id: String) -> Document {
        Document(name: prefix + id, fields: [:], createTime: time(1), updateTime: time(1))
    }

    /// Shard 0's snapshot at second `read`, of generation `generation`: `documents` the result, `added` and `removed`
    /// its changes, the first of its feed when `resumedFrom` is set.
    static func snapshot(
        _ lease: DocumentReference, generation: Int64, read: Int64, documents: [String], added: [String] = [],
        removed: [String] = [], resumedFrom: Int64? = nil, stored: Int64? = nil
    ) throws -> ShardSnapshot {
        let query = try Firestore.offline().collection("items").query
        let changes =
            added.map { ComputedChange(type: .added, document: document($0), oldIndex: nil, newIndex: 0) }
            + removed.map { ComputedChange(type: .removed, document: document($0), oldIndex: 0, newIndex: nil) }
        let snapshot = FeedSnapshot.make(
            query: query, documents: documents.map(document), changes: changes, readTime: time(read),
            statistics: nil, resumePoint: nil)
        return ShardSnapshot(
            shard: 0, generation: generation, snapshot: snapshot, resumedFrom: resumedFrom.map(time),
            acknowledgement: {}, fence: { .seconds(1) }, leaseDocument: lease,
            storedCheckpoint: { stored.map(time) })
    }

    /// The records beside `lease`: ID to names.
    static func records(_ lease: DocumentReference) async throws -> [String: String] {
        var records: [String: String] = [:]
        for record in try await lease.collection("publishPending").getDocuments().documents {
            if case .string(let names)? = record.get("names") { records[record.reference.documentID] = names }
        }
        return records
    }

    @Test func theNextOwnerRemovesWhatTheKilledOwnerPublishedPastTheCheckpointAndTheResultLacks() async throws {
        let db = try LiveFirestore.make("publish-pending")
        let lease = db.document("groups/g/shards/0")
        // Owner 1, from the checkpoint at second 10 (a, b): adds c, then d; killed before its next renewal.
        let owner = ShardPublishPendingNames()
        let first = try Self.snapshot(
            lease, generation: 1, read: 11, documents: ["a", "b", "c"], added: ["c"], resumedFrom: 10, stored: 10)
        #expect(try await owner.beforePublishing(first).isEmpty)
        let second = try Self.snapshot(
            lease, generation: 1, read: 12, documents: ["a", "b", "c", "d"], added: ["d"], stored: 10)
        #expect(try await owner.beforePublishing(second).isEmpty)
        #expect(try await Self.records(lease) == ["1-0": "\(Self.prefix)c\n\(Self.prefix)d"])
        // Owner 2 resumes from second 10: b and d were deleted meanwhile. b's removal is the feed's own; d was never
        // in the checkpoint, so only the kept names tell it.
        let next = ShardPublishPendingNames()
        let takeover = try Self.snapshot(
            lease, generation: 2, read: 20, documents: ["a", "c"], added: ["c"], removed: ["b"], resumedFrom: 10,
            stored: 10)
        let removals = try await next.beforePublishing(takeover)
        #expect(removals.map { $0.attributes["name"] } == [Self.prefix + "d"])
        #expect(removals.map { $0.attributes["changeType"] } == ["removed"])
        #expect(removals.map { $0.attributes["updateTime"] } == ["2026-01-01T00:00:20.000000000Z"])
        #expect(removals.map { [$0.attributes["shard"], $0.attributes["generation"]] } == [["0", "2"]])
        // Owner 1's record is gone; owner 2's holds what it read and what it publishes until a checkpoint covers them.
        #expect(try await Self.records(lease) == ["2-0": "\(Self.prefix)c\n\(Self.prefix)d"])
        // Its checkpoint at second 20 written: only what comes after is kept.
        let later = try Self.snapshot(
            lease, generation: 2, read: 21, documents: ["a", "c", "e"], added: ["e"], stored: 20)
        #expect(try await next.beforePublishing(later).isEmpty)
        #expect(try await Self.records(lease) == ["2-0": "\(Self.prefix)e"])
        // A snapshot with only a removal, after a checkpoint at second 21: nothing is kept, the record deleted.
        let removal = try Self.snapshot(
            lease, generation: 2, read: 22, documents: ["a", "c"], removed: ["e"], stored: 21)
        #expect(try await next.beforePublishing(removal).isEmpty)
        #expect(try await Self.records(lease) == [:])
    }

    @Test func namesAreSplitIntoRecordsOfAtMostTheChunkSize() {
        let long = String(repeating: "x", count: 500_000)
        let names = [long + "1", long + "2", "short"]
        #expect(
            ShardPublishPendingNames.chunks(of: names).map(\.utf8.count) == [500_001, 500_001 + 1 + 5])
        #expect(ShardPublishPendingNames.chunks(of: ["a", "b"]) == ["a\nb"])
        #expect(ShardPublishPendingNames.chunks(of: []) == [])
    }
}
