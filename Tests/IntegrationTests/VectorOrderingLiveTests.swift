import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

/// Issue 19, item 4, against the real emulator: the server's order of vectors (`{__type__: "__vector__", value:
/// [...]}`) among the other types is the client's `FirestoreValue.compare`, so the change feeds' indexes rebuild the
/// server's list; a 300-write random run over mixed value types never trips the ordering check.
@Suite(.timeLimit(.minutes(3))) struct VectorOrderingLiveTests {
    static func vector(_ elements: [Double]) -> FirestoreValue {
        .map(["__type__": .string("__vector__"), "value": .array(elements.map { .double($0) })])
    }

    /// Sets document `path` to `{v: value}` with a plain REST commit: the write helpers refuse the reserved
    /// `__type__` name inside a vector, which the server accepts there.
    static func set(_ db: Firestore, _ path: String, _ value: FirestoreValue) async throws {
        try await db.commit([.update(path: try ResourcePath(path), fields: ["v": value], mask: nil, precondition: nil)])
    }

    final class Events: Sendable {
        let all = Mutex<[FeedEvent]>([])
        /// Every event but the per-poll statistics (`.polled`).
        func note(_ event: FeedEvent) {
            if case .polled = event { return }
            all.withLock { $0.append(event) }
        }
        var list: [FeedEvent] { all.withLock { $0 } }
    }

    /// The four documents: the emulator orders them `[a, v, m, m2]`, the client's ordering agrees, and the
    /// first snapshot of both feeds adds them at 0, 1, 2, 3 (was 0, 1, 1, 3).
    @Test func theEmulatorOrdersVectorsAfterArraysAndBeforeMaps() async throws {
        let db = try LiveFirestore.make("vectors")
        let vecs = db.collection("vecs")
        try await Self.set(db, "vecs/a", .array([.integer(1)]))
        try await Self.set(db, "vecs/v", Self.vector([1, 2, 3]))
        try await Self.set(db, "vecs/m", .map([:]))
        try await Self.set(db, "vecs/m2", .map(["a": .integer(1)]))
        let query = vecs.order(by: "v")
        let server = try await query.getDocuments()
        #expect(server.documents.map(\.documentID) == ["a", "v", "m", "m2"])
        let ordering = DocumentOrdering(query: query.query)
        let sorted = server.documents.compactMap(\.document).sorted { ordering.compare($0, $1) < 0 }
        #expect(sorted.map { $0.name.split(separator: "/").last.map(String.init) } == ["a", "v", "m", "m2"])

        for source in [FeedSource.poll(.keys), .listen] {
            let events = Events()
            var feed = query.snapshots(source: source, interval: .milliseconds(200)) { events.note($0) }
                .makeAsyncIterator()
            let first = try #require(try await feed.next())
            #expect(first.documents.map(\.documentID) == ["a", "v", "m", "m2"], "\(source)")
            #expect(first.documentChanges.map(\.newIndex) == [0, 1, 2, 3], "\(source)")
            #expect(events.list == [], "\(source)")
        }
    }

    /// 300 seeded random writes (values of every orderable type, vectors of several dimensions among them) on 12
    /// documents ordered by `v`, watched by a keys-mode feed and a Listen feed: every snapshot's changes rebuild its
    /// list, no snapshot reports an ordering mismatch, and both end equal to a direct query.
    @Test func a300WriteRandomRunKeepsTheServersOrder() async throws {
        let db = try LiveFirestore.make("vectors-random")
        let items = db.collection("mixed")
        let values: [FirestoreValue] = [
            .null, .boolean(false), .boolean(true), .integer(-3), .double(2.5), .integer(7), .string(""), .string("b"),
            .string("é"), .bytes(Data([1, 2])), .geoPoint(GeoPoint(latitude: 1, longitude: 2)), .array([]),
            .array([.integer(1)]), .array([.integer(1), .integer(2)]), .array([.string("x")]), Self.vector([5]),
            Self.vector([-1, 0]), Self.vector([1, 2]), Self.vector([1, 3]), Self.vector([0, 0, 0]),
            Self.vector([-2, 5, 1]), Self.vector([0.5, 0.25, 9, 1]),
            .map([:]), .map(["a": .integer(1)]), .map(["a": .integer(1), "b": .null]), .map(["b": .boolean(true)]),
        ]
        var random = SplitMix64(state: 1919)
        for index in 0..<12 {
            try await Self.set(db, "mixed/d\(index)", values[random.below(values.count)])
        }
        let query = items.order(by: "v")
        let keysEvents = Events()
        let listenEvents = Events()
        let keysFeed = query.snapshots(source: .poll(.keys), interval: .milliseconds(100)) { keysEvents.note($0) }
        let listenFeed = query.snapshots(source: .listen) { listenEvents.note($0) }
        let keys = FeedFollower(keysFeed)
        let listen = FeedFollower(listenFeed)
        defer {
            keys.stop()
            listen.stop()
        }
        // Both feeds have their first snapshot before the writes start, so each sees the writes as changes (on a
        // fast machine the writes could otherwise all come before a feed's first snapshot).
        for (name, follower) in [("keys", keys), ("listen", listen)] {
            let state = try await follower.wait(seconds: 60) { $0.snapshots > 0 }
            try #require(state.snapshots > 0, "\(name): a first snapshot")
        }
        for _ in 0..<300 {
            let id = "d\(random.below(14))"
            if random.below(6) == 0 {
                try await items.document(id).delete()
            } else {
                try await Self.set(db, "mixed/" + id, values[random.below(values.count)])
            }
        }
        let expected = try await query.getDocuments().documents.map(\.documentID)
        for (name, follower) in [("keys", keys), ("listen", listen)] {
            let state = try await follower.wait(seconds: 30) { $0.ids == expected }
            #expect(state.ids == expected, "\(name)")
            #expect(state.problems == [], "\(name)")
            #expect(state.snapshots > 1, "\(name)")
        }
        #expect(!keysEvents.list.contains { if case .orderingMismatch = $0 { true } else { false } })
        #expect(!listenEvents.list.contains { if case .orderingMismatch = $0 { true } else { false } })
    }
}
