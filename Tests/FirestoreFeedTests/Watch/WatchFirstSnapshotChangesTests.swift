import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreFeed

/// A Listen target's first snapshot says its changes are every document added (``WatchSnapshotChanges``) instead of
/// listing them, and the feed makes each document's `DocumentSnapshot` and `DocumentChange` in one pass: the same
/// snapshot the listed changes give. Later snapshots list their changes.
@Suite(.timeLimit(.minutes(2))) struct WatchFirstSnapshotChangesTests {
    typealias Aggregator = WatchChangeAggregatorTests

    static func time(_ seconds: Int64) -> Timestamp? { try? Timestamp(seconds: seconds, nanos: 0) }

    static func target() -> WatchChangeAggregator {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: Aggregator.byName)
        return aggregator
    }

    @Test func aFirstSnapshotSaysEveryDocumentAddedEvenWhenTheNamesArrivedOutOfOrder() throws {
        var aggregator = Self.target()
        for response in [
            Aggregator.target(.add, [1]), Aggregator.change("b", targets: [1]), Aggregator.change("a", targets: [1]),
            Aggregator.change("c", targets: [1]), Aggregator.target(.current, [1]),
        ] {
            _ = try aggregator.apply(response)
        }
        let (a, b, c) = (Aggregator.document("a"), Aggregator.document("b"), Aggregator.document("c"))
        #expect(
            try aggregator.apply(Aggregator.point(10)) == [
                .snapshot(targetID: 1, documents: [a, b, c], changes: .everyDocumentAdded, readTime: Self.time(10))
            ])
        // The next snapshot lists its changes: b modified in place, d added after c.
        _ = try aggregator.apply(Aggregator.change("b", version: 2, targets: [1]))
        _ = try aggregator.apply(Aggregator.change("d", targets: [1]))
        let (b2, d) = (Aggregator.document("b", version: 2), Aggregator.document("d"))
        #expect(
            try aggregator.apply(Aggregator.point(11)) == [
                .snapshot(
                    targetID: 1, documents: [a, b2, c, d],
                    changes: .computed([
                        ComputedChange(type: .added, document: d, oldIndex: nil, newIndex: 3),
                        ComputedChange(type: .modified, document: b2, oldIndex: 1, newIndex: 1),
                    ]), readTime: Self.time(11))
            ])
    }

    @Test func anEmptyFirstSnapshotIsPublishedAndTheFirstDocumentsAfterItAreEveryDocumentAdded() throws {
        var aggregator = Self.target()
        _ = try aggregator.apply(Aggregator.target(.current, [1]))
        #expect(
            try aggregator.apply(Aggregator.point(10)) == [
                .snapshot(targetID: 1, documents: [], changes: .everyDocumentAdded, readTime: Self.time(10))
            ])
        // Nothing changed: no snapshot.
        #expect(try aggregator.apply(Aggregator.point(11)) == [])
        _ = try aggregator.apply(Aggregator.change("a", targets: [1]))
        #expect(
            try aggregator.apply(Aggregator.point(12)) == [
                .snapshot(
                    targetID: 1, documents: [Aggregator.document("a")], changes: .everyDocumentAdded,
                    readTime: Self.time(12))
            ])
    }

    @Test func everyDocumentAddedListsEachAtItsPositionAndCountsEachDelivered() {
        let (a, b) = (Aggregator.document("a"), Aggregator.document("b"))
        let said = WatchSnapshotChanges.everyDocumentAdded
        #expect(
            said.list(for: [a, b]) == [
                ComputedChange(type: .added, document: a, oldIndex: nil, newIndex: 0),
                ComputedChange(type: .added, document: b, oldIndex: nil, newIndex: 1),
            ])
        #expect(said.list(for: []) == [])
        #expect(said.documentsDelivered(for: [a, b]) == 2)
        let listed = WatchSnapshotChanges.computed([
            ComputedChange(type: .removed, document: a, oldIndex: 0, newIndex: nil),
            ComputedChange(type: .modified, document: b, oldIndex: 0, newIndex: 0),
        ])
        #expect(listed.documentsDelivered(for: [b]) == 1)
        #expect(listed.list(for: [b]).map(\.type) == [.removed, .modified])
    }

    @Test func theFeedMakesTheSameSnapshotFromTheSaidChangesAsFromTheListedOnes() throws {
        let query = try Firestore.offline().collection("C").query
        let documents = ["a", "b", "c"].map { Aggregator.document($0) }
        let point = FeedResumePoint(resumeToken: [7])
        let said = FeedSnapshot.make(
            query: query, documents: documents, changes: WatchSnapshotChanges.everyDocumentAdded,
            readTime: Self.time(10), statistics: nil, resumePoint: point)
        let listed = FeedSnapshot.make(
            query: query, documents: documents, changes: WatchSnapshotChanges.everyDocumentAdded.list(for: documents),
            readTime: Self.time(10), statistics: nil, resumePoint: point)
        #expect(said.documents == listed.documents)
        #expect(said.documentChanges == listed.documentChanges)
        #expect(said.documentChanges.map(\.newIndex) == [0, 1, 2])
        #expect(said.documentChanges.map(\.oldIndex) == [nil, nil, nil])
        #expect(said.documentChanges.map(\.type) == [.added, .added, .added])
        #expect(said.documentChanges.map(\.document.documentID) == ["a", "b", "c"])
        #expect(said.readTime == Self.time(10))
        #expect(said.resumePoint == point)
    }

    /// A document added and gone again after an empty first snapshot: the view is still empty, no snapshot.
    @Test func aDocumentAddedAndGoneBeforeThePointAfterAnEmptySnapshotPublishesNothing() throws {
        var aggregator = Self.target()
        _ = try aggregator.apply(Aggregator.target(.current, [1]))
        #expect(
            try aggregator.apply(Aggregator.point(10)) == [
                .snapshot(targetID: 1, documents: [], changes: .everyDocumentAdded, readTime: Self.time(10))
            ])
        _ = try aggregator.apply(Aggregator.change("a", targets: [1]))
        _ = try aggregator.apply(
            .documentDelete(ListenDocumentDelete(documentName: Aggregator.root + "a", removedTargetIDs: [1])))
        #expect(try aggregator.apply(Aggregator.point(11)) == [])
        #expect(aggregator.targets[1]?.published == [])
    }

    /// More changes than are placed one by one (``WatchTargetState/placedOneByOne``), in the ordering's order: merged
    /// in one pass and said to be every document added; after every document left, the next ones are too.
    @Test func aMergedFirstSnapshotAndOneAfterEveryDocumentLeftSayEveryDocumentAdded() throws {
        var aggregator = Self.target()
        let ids = (0..<12).map { "d" + String(format: "%02d", $0) }
        for id in ids { _ = try aggregator.apply(Aggregator.change(id, targets: [1])) }
        _ = try aggregator.apply(Aggregator.target(.current, [1]))
        #expect(
            try aggregator.apply(Aggregator.point(10)) == [
                .snapshot(
                    targetID: 1, documents: ids.map { Aggregator.document($0) }, changes: .everyDocumentAdded,
                    readTime: Self.time(10))
            ])
        for id in ids {
            _ = try aggregator.apply(
                .documentDelete(ListenDocumentDelete(documentName: Aggregator.root + id, removedTargetIDs: [1])))
        }
        let removals = ids.map { id in
            ComputedChange(type: .removed, document: Aggregator.document(id), oldIndex: 0, newIndex: nil)
        }
        #expect(
            try aggregator.apply(Aggregator.point(11)) == [
                .snapshot(targetID: 1, documents: [], changes: .computed(removals), readTime: Self.time(11))
            ])
        _ = try aggregator.apply(Aggregator.change("z", targets: [1]))
        #expect(
            try aggregator.apply(Aggregator.point(12)) == [
                .snapshot(
                    targetID: 1, documents: [Aggregator.document("z")], changes: .everyDocumentAdded,
                    readTime: Self.time(12))
            ])
    }
}
