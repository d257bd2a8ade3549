import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreFeed

/// The check a checkpointed feed runs before writing a snapshot (`CheckpointChangeCheck`): its changes applied to
/// the stored names give as many documents as it lists; one that fails is never written, and the feed ends with
/// `.internal` naming its changes and documents (the store keeps the snapshot before it). No network.
@Suite(.timeLimit(.minutes(2))) struct CheckpointChangeCheckTests {
    static func query() throws -> Query { try VersionedFirestore(now: .minimum).firestore().collection("items").query }

    static func document(_ id: String, second: Int64 = 1) throws -> Document {
        let time = try Timestamp(seconds: 1_000 + second, nanos: 0)
        return Document(
            name: VersionedFirestore.root + "/items/" + id, fields: ["v": .integer(second)], createTime: time,
            updateTime: time)
    }

    /// A snapshot of `query` listing `documents` with `changes` (type, document, oldIndex, newIndex).
    static func snapshot(
        _ query: Query, _ documents: [Document], _ changes: [(DocumentChangeType, Document, Int?, Int?)], second: Int64
    ) throws -> QuerySnapshot {
        let firestore = query.firestore
        return QuerySnapshot(
            query: query, documents: documents.map { DocumentSnapshot(firestore: firestore, document: $0) },
            documentChanges: changes.map { type, document, old, new in
                DocumentChange(
                    type: type, document: DocumentSnapshot(firestore: firestore, document: document), oldIndex: old,
                    newIndex: new)
            },
            readTime: try Timestamp(seconds: 2_000 + second, nanos: 0))
    }

    @Test func changesThatRebuildTheSnapshotPass() throws {
        let query = try Self.query()
        let (a, b, c) = (try Self.document("a"), try Self.document("b"), try Self.document("c"))
        var check = CheckpointChangeCheck(documents: [a, b])
        let a2 = try Self.document("a", second: 2)
        let next = try Self.snapshot(
            query, [a2, c], [(.removed, b, 1, nil), (.added, c, nil, 1), (.modified, a2, 0, 0)], second: 1)
        #expect(check.apply(next) == nil)
        #expect(check.names == [ByteExactName(name: a.name), ByteExactName(name: c.name)])
    }

    @Test func anAdditionOfAStoredDocumentIsRefusedWithTheLists() throws {
        let query = try Self.query()
        let (a, b) = (try Self.document("a"), try Self.document("b"))
        var check = CheckpointChangeCheck(documents: [a])
        // The same name twice in the list, added once more: the stored rows would hold 2, the count say 3.
        let next = try Self.snapshot(query, [a, a, b], [(.added, a, nil, 0), (.added, b, nil, 2)], second: 1)
        #expect(
            check.apply(next)
                == "added items/a, which is stored; the changes leave 2 documents of the 1 stored, the snapshot lists "
                + "3; its changes: [added a -->0, added b -->2]; its documents: [a, a, b]")
        #expect(check.names == [ByteExactName(name: a.name)])
    }

    @Test func aRemovalOrModificationOfADocumentNotStoredIsRefused() throws {
        let query = try Self.query()
        let (a, b, c) = (try Self.document("a"), try Self.document("b"), try Self.document("c"))
        var check = CheckpointChangeCheck(documents: [a])
        let next = try Self.snapshot(query, [a], [(.removed, b, 1, nil), (.modified, c, 1, 1)], second: 1)
        #expect(
            check.apply(next)
                == "removed items/b, which is not stored; modified items/c, which is not stored; its changes: "
                + "[removed b 1->-, modified c 1->1]; its documents: [a]")
    }

    @Test func aDocumentListedWithoutAChangeIsRefused() throws {
        let query = try Self.query()
        let (a, b) = (try Self.document("a"), try Self.document("b"))
        var check = CheckpointChangeCheck(documents: [a])
        let next = try Self.snapshot(query, [a, b], [], second: 1)
        #expect(
            check.apply(next)
                == "the changes leave 1 documents of the 1 stored, the snapshot lists 2; its changes: []; "
                + "its documents: [a, b]")
    }

    /// Through the feed: the first snapshot is written; the second, whose changes do not rebuild its list, ends the
    /// feed with `.internal` when it would be written, and the store still holds the first.
    @Test func aCheckpointedFeedRefusesToWriteASnapshotWhoseChangesDoNotApply() async throws {
        let path = CheckpointFiles.temporaryPath("change-check")
        defer { CheckpointFiles.remove(path) }
        let store = try await FeedCheckpointStore(path: path)
        let query = try Self.query()
        let (a, b, c) = (try Self.document("a"), try Self.document("b"), try Self.document("c"))
        let first = try Self.snapshot(query, [a, b], [(.added, a, nil, 0), (.added, b, nil, 1)], second: 1)
        let second = try Self.snapshot(query, [a, b, c], [(.added, b, nil, 1), (.added, c, nil, 2)], second: 2)
        let buffer = CoalescingBuffer<QuerySnapshot>(coalesce: { _, newest in newest }, onEvent: nil)
        let feed = CheckpointedFeed(
            store: store, key: "k", query: query, source: .poll(.keys), onEvent: nil, upstream: { _, _ in buffer })
        buffer.yield(first)
        let received = try await feed.next()
        #expect(received?.documents.map(\.documentID) == ["a", "b"])
        buffer.yield(second)
        let next = try await feed.next()
        #expect(next?.documents.map(\.documentID) == ["a", "b", "c"])
        var failure: FirestoreError?
        do {
            _ = try await feed.next()
        } catch {
            failure = error as? FirestoreError
        }
        #expect(failure?.code == .internal)
        #expect(
            failure?.message
                == "checkpoint store \(path): key \"k\": the snapshot at 1970-01-01T00:33:22Z does not follow from "
                + "the stored one: added items/b, which is stored; its changes: [added b -->1, added c -->2]; its "
                + "documents: [a, b, c]; not written (the store keeps the snapshot before it)")
        let stored = try await store.checkpoint(key: "k")
        #expect(stored?.generation == 1)
        #expect(stored?.documents.map(\.id) == ["a", "b"])
        #expect(await store.waitUntilReleased("k"))
    }
}
