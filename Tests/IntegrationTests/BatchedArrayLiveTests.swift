import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// BatchedArray against the real emulator: first load, an insertion, a document that moves and changes
/// (field case A-2), then a query swap diffed against the old contents.
@Suite(.timeLimit(.minutes(2))) struct BatchedArrayLiveTests {
    static func ids(_ update: BatchedArray.Update) -> [String] { update.items.map(\.documentID) }

    @Test func followsTheQueryAndItsReplacement() async throws {
        let db = try LiveFirestore.make("batched")
        let fruits = db.collection("fruits")
        try await fruits.document("apple").setData(["name": "Apple", "isFavourite": true])
        try await fruits.document("banana").setData(["name": "Banana", "isFavourite": true])
        try await fruits.document("cherry").setData(["name": "Cherry", "isFavourite": false])

        let array = BatchedArray(
            query: fruits.whereField("isFavourite", isEqualTo: true).order(by: "name"),
            interval: .milliseconds(50))
        var updates = array.updates().makeAsyncIterator()
        array.observeQuery()

        let first = try #require(await updates.next())
        #expect(first.diff.insertedIndexes == [0, 1])
        #expect(Self.ids(first) == ["apple", "banana"])

        try await fruits.document("date").setData(["name": "Date", "isFavourite": true])
        let added = try #require(await updates.next())
        #expect(added.diff.insertedIndexes == [2])
        #expect(
            added.diff.deletedIndexes == [] && added.diff.movedInitialIndexes == [] && added.diff.changedIndexes == [])
        #expect(Self.ids(added) == ["apple", "banana", "date"])

        try await fruits.document("banana").updateData(["name": "Aardvark"])
        let moved = try #require(await updates.next())
        #expect(moved.diff.movedInitialIndexes == [1])
        #expect(moved.diff.movedResultIndexes == [0])
        #expect(moved.diff.changedIndexes == [1])
        #expect(moved.diff.changedResultIndexes == [0])
        #expect(moved.diff.insertedIndexes == [] && moved.diff.deletedIndexes == [])
        #expect(Self.ids(moved) == ["banana", "apple", "date"])
        #expect(array[0]?.get("name") == .string("Aardvark"))

        array.source = PollingQuerySource(
            fruits.whereField("isFavourite", isEqualTo: false).order(by: "name"),
            interval: .milliseconds(50))
        let swapped = try #require(await updates.next())
        #expect(swapped.diff.deletedIndexes == [0, 1, 2])
        #expect(swapped.diff.insertedIndexes == [0])
        #expect(Self.ids(swapped) == ["cherry"])

        array.stopObserving()
        #expect(!array.isObserving)
        #expect(array.items.map(\.documentID) == ["cherry"])
        #expect(array.lastError == nil)
    }
}
