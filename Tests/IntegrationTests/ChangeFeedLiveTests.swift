import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The change feed against the real emulator: add, modify, reorder, leave the query, delete.
@Suite(.timeLimit(.minutes(2))) struct ChangeFeedLiveTests {
    struct Change: Equatable, CustomStringConvertible {
        let type: DocumentChangeType
        let id: String
        let oldIndex: Int?
        let newIndex: Int?
        init(_ type: DocumentChangeType, _ id: String, _ oldIndex: Int?, _ newIndex: Int?) {
            (self.type, self.id, self.oldIndex, self.newIndex) = (type, id, oldIndex, newIndex)
        }
        var description: String {
            "\(type) \(id) \(oldIndex.map(String.init) ?? "nil")->\(newIndex.map(String.init) ?? "nil")"
        }
    }

    static func changes(_ snapshot: QuerySnapshot) -> [Change] {
        snapshot.documentChanges.map { Change($0.type, $0.document.documentID, $0.oldIndex, $0.newIndex) }
    }

    @Test func scenarioYieldsTheAssertedChanges() async throws {
        let db = try LiveFirestore.make("feed")
        let fruits = db.collection("fruits")
        try await fruits.document("apple").setData(["name": "Apple", "isFavourite": true])
        try await fruits.document("banana").setData(["name": "Banana", "isFavourite": true])
        try await fruits.document("cherry").setData(["name": "Cherry", "isFavourite": false])
        try await fruits.document("date").setData(["name": "Date", "isFavourite": true])

        let query = fruits.whereField("isFavourite", isEqualTo: true).order(by: "name")
        var feed = query.snapshots(interval: .milliseconds(50)).makeAsyncIterator()

        let first = try #require(try await feed.next())
        #expect(
            Self.changes(first) == [
                Change(.added, "apple", nil, 0), Change(.added, "banana", nil, 1), Change(.added, "date", nil, 2),
            ])
        #expect(first.documents.map(\.documentID) == ["apple", "banana", "date"])

        try await fruits.document("fig").setData(["name": "Fig", "isFavourite": true])
        let added = try #require(try await feed.next())
        #expect(Self.changes(added) == [Change(.added, "fig", nil, 3)])

        try await fruits.document("apple").updateData(["color": "green"])
        let modified = try #require(try await feed.next())
        #expect(Self.changes(modified) == [Change(.modified, "apple", 0, 0)])
        #expect(modified.documentChanges.first?.document.get("color") == .string("green"))

        try await fruits.document("banana").updateData(["name": "Plantain"])
        let reordered = try #require(try await feed.next())
        #expect(Self.changes(reordered) == [Change(.modified, "banana", 1, 3)])
        #expect(reordered.documents.map(\.documentID) == ["apple", "date", "fig", "banana"])

        try await fruits.document("date").updateData(["isFavourite": false])
        let left = try #require(try await feed.next())
        #expect(Self.changes(left) == [Change(.removed, "date", 1, nil)])

        try await fruits.document("fig").delete()
        let deleted = try #require(try await feed.next())
        #expect(Self.changes(deleted) == [Change(.removed, "fig", 1, nil)])
        #expect(deleted.documents.map(\.documentID) == ["apple", "banana"])

        // Several changes in one poll: removals, then additions, then modifications.
        let batch: [Write] = [
            .delete(path: try ResourcePath("fruits/apple"), precondition: nil),
            .update(
                path: try ResourcePath("fruits/cherry"), fields: ["name": "Cherry", "isFavourite": true],
                mask: nil, precondition: nil),
            .update(
                path: try ResourcePath("fruits/banana"), fields: ["name": "Avocado", "isFavourite": true],
                mask: nil, precondition: nil),
        ]
        _ = try await db.commit(batch)
        let combined = try #require(try await feed.next())
        #expect(
            Self.changes(combined) == [
                // cherry is placed against banana's old version (Plantain), as the SDKs do; then banana moves.
                Change(.removed, "apple", 0, nil), Change(.added, "cherry", nil, 0), Change(.modified, "banana", 1, 0),
            ])
        #expect(combined.documents.map(\.documentID) == ["banana", "cherry"])
    }

    @Test func listenerReceivesSnapshotsUntilRemoved() async throws {
        let db = try LiveFirestore.make("listener")
        let notes = db.collection("notes")
        try await notes.document("a").setData(["n": 1])
        let (stream, continuation) = AsyncStream<[String]>.makeStream()
        let registration = notes.addSnapshotListener(interval: .milliseconds(50)) { snapshot, error in
            if let snapshot { continuation.yield(snapshot.documents.map(\.documentID)) }
            if let error { continuation.yield(["error: \(error)"]) }
        }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == ["a"])
        try await notes.document("b").setData(["n": 2])
        #expect(await received.next() == ["a", "b"])
        registration.remove()
    }

    @Test func anInvalidQueryEndsTheFeedBeforeSending() async throws {
        let db = try LiveFirestore.make("invalid")
        let stream = db.collection("c").whereField("a", isLessThan: FirestoreValue.null).snapshots()
        do {
            for try await _ in stream { Issue.record("no snapshot expected") }
            Issue.record("the feed must end with an error")
        } catch let error as FirestoreError {
            #expect(error.code == .invalidArgument)
            #expect(error.message == "invalid filter a < null: null only supports == and !=")
        }
    }
}
