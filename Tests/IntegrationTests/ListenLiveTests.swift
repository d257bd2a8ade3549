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
        let events = Events()
        let listen = try await FeedModesLiveTests.scenario(.listen) { events.note($0) }
        #expect(listen.changes == FeedModesLiveTests.expected)
        // Listen: the documents delivered, which is what Firestore bills (a removal delivers none).
        #expect(listen.fetched == [3, 1, 1, 1, 0, 0])
        #expect(listen.billed == [3, 1, 1, 1, 0, 0])
        #expect(events.all.withLock { $0 } == [])  // no failure, no fallback to polling
    }
}

extension ListenLiveTests {
    /// `limit(to:)` and `limit(toLast:)` over the Listen stream: the window follows the writes, and
    /// `limit(toLast:)` lists its documents in the query's own order.
    @Test func limitAndLimitToLastFollowTheWindow() async throws {
        let db = try LiveFirestore.make("listen-limit")
        let items = db.collection("items")
        for n in [10, 20, 30, 40] { try await items.document("i\(n)").setData(["n": .integer(Int64(n))]) }
        let ordered = items.order(by: "n")
        var first = ordered.limit(to: 2).snapshots(source: .listen).makeAsyncIterator()
        var last = ordered.limit(toLast: 2).snapshots(source: .listen).makeAsyncIterator()
        func ids(_ snapshot: QuerySnapshot?) -> [String] { snapshot?.documents.map(\.documentID) ?? ["<end>"] }
        #expect(ids(try await first.next()) == ["i10", "i20"])
        #expect(ids(try await last.next()) == ["i30", "i40"])
        try await items.document("i5").setData(["n": 5])
        let firstAfterAdd = try #require(try await first.next())
        #expect(ids(firstAfterAdd) == ["i5", "i10"])
        #expect(
            Self.changes(firstAfterAdd) == [
                Change(type: .removed, id: "i20", oldIndex: 1, newIndex: nil),
                Change(type: .added, id: "i5", oldIndex: nil, newIndex: 0),
            ])
        try await items.document("i50").setData(["n": 50])
        let lastAfterAdd = try #require(try await last.next())
        #expect(ids(lastAfterAdd) == ["i40", "i50"])
        #expect(
            Self.changes(lastAfterAdd) == [
                Change(type: .removed, id: "i30", oldIndex: 0, newIndex: nil),
                Change(type: .added, id: "i50", oldIndex: nil, newIndex: 1),
            ])
    }

    /// 100 listeners on 20 distinct queries share one stream (one HTTP/2 connection, 20 targets); a write reaches
    /// every listener of its query, and only those.
    @Test func hundredListenersOnTwentyQueriesShareOneStream() async throws {
        let db = try LiveFirestore.make("listen-fanout")
        let items = db.collection("items")
        try await items.document("seed").setData(["group": -1])
        let queries = (0..<20).map { items.whereField("group", isEqualTo: $0) }
        var feeds = (0..<100).map { queries[$0 % 20].snapshots(source: .listen).makeAsyncIterator() }
        for index in feeds.indices {
            let first = try #require(try await feeds[index].next())
            #expect(first.documents.isEmpty)
        }
        try await items.document("g7").setData(["group": 7])
        for index in feeds.indices where index % 20 == 7 {
            let snapshot = try #require(try await feeds[index].next())
            #expect(snapshot.documents.map(\.documentID) == ["g7"])
        }
        let stream = try #require(WatchStreamPool.shared.stream(for: db))
        #expect(stream.targetCount == 20)
        #expect(stream.channel.activeCallCount == 1)  // one gRPC call: one HTTP/2 stream on one connection
    }
}

extension ListenLiveTests {
    /// A document listener over the Listen stream: absent, created, updated, deleted, re-created.
    @Test func aDocumentListenerSeesCreateUpdateDeleteAndRecreate() async throws {
        let db = try LiveFirestore.make("listen-document")
        let apple = db.document("fruits/apple")
        var feed = apple.snapshots(source: .listen).makeAsyncIterator()
        func next() async throws -> (exists: Bool, kcal: FirestoreValue?) {
            let snapshot = try #require(try await feed.next())
            #expect(snapshot.documentID == "apple")
            return (snapshot.exists, snapshot.get("kcal"))
        }
        #expect(try await next() == (false, nil))
        try await apple.setData(["kcal": 52])
        #expect(try await next() == (true, .integer(52)))
        try await apple.updateData(["kcal": 53])
        #expect(try await next() == (true, .integer(53)))
        try await apple.delete()
        #expect(try await next() == (false, nil))
        try await apple.setData(["kcal": 54])
        #expect(try await next() == (true, .integer(54)))
    }
}
