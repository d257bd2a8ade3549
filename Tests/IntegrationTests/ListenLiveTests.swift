import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// The Listen stream against the real emulator: the first issue's scenario gives exactly the change list of
/// keys-mode polling, indexes included; limits; sharing.
@Suite(.timeLimit(.minutes(2))) struct ListenLiveTests {
    typealias Change = FeedModesLiveTests.Change

    static func changes(_ snapshot: QuerySnapshot) -> [Change] {
        snapshot.documentChanges.map {
            Change(type: $0.type, id: $0.document.documentID, oldIndex: $0.oldIndex, newIndex: $0.newIndex)
        }
    }

    /// Records the feed's events.
    final class Events: Sendable {
        let all = Mutex<[FeedEvent]>([])
        func note(_ event: FeedEvent) { all.withLock { $0.append(event) } }
    }

    @Test func theFirstScenarioGivesTheKeysModeChanges() async throws {
        let db = try LiveFirestore.make("listen-scenario")
        let fruits = db.collection("fruits")
        for (id, name, favourite) in [
            ("apple", "Apple", true), ("banana", "Banana", true), ("cherry", "Cherry", false), ("date", "Date", true),
        ] {
            try await fruits.document(id).setData(["name": .string(name), "isFavourite": .boolean(favourite)])
        }
        let query = fruits.whereField("isFavourite", isEqualTo: true).order(by: "name")
        let events = Events()
        var feed = query.snapshots(source: .listen) { events.note($0) }.makeAsyncIterator()
        var changes: [[Change]] = []
        func next() async throws {
            changes.append(Self.changes(try #require(try await feed.next())))
        }
        try await next()
        try await fruits.document("fig").setData(["name": "Fig", "isFavourite": true])
        try await next()
        try await fruits.document("apple").updateData(["color": "green"])
        try await next()
        try await fruits.document("banana").updateData(["name": "Plantain"])
        try await next()
        try await fruits.document("date").updateData(["isFavourite": false])
        try await next()
        try await fruits.document("fig").delete()
        try await next()
        #expect(
            changes == [
                [
                    Change(type: .added, id: "apple", oldIndex: nil, newIndex: 0),
                    Change(type: .added, id: "banana", oldIndex: nil, newIndex: 1),
                    Change(type: .added, id: "date", oldIndex: nil, newIndex: 2),
                ],
                [Change(type: .added, id: "fig", oldIndex: nil, newIndex: 3)],
                [Change(type: .modified, id: "apple", oldIndex: 0, newIndex: 0)],
                [Change(type: .modified, id: "banana", oldIndex: 1, newIndex: 3)],
                [Change(type: .removed, id: "date", oldIndex: 1, newIndex: nil)],
                [Change(type: .removed, id: "fig", oldIndex: 1, newIndex: nil)],
            ])
        #expect(events.all.withLock { $0 } == [])
    }
}
