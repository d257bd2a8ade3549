import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

/// Issue 19, item 3: a listener that falls behind holds at most one snapshot and gets the ones it missed as one,
/// with the changes from the last snapshot it received (the same `DocumentChange` rules); one that keeps up gets
/// every snapshot. Scripted snapshots and a scripted transport on a manual clock: no network, no sleeping.
@Suite(.timeLimit(.minutes(2))) struct SlowConsumerTests {
    typealias Change = QueryPollerTests.Change

    static let root = "projects/p/databases/(default)/documents/fruits/"

    static func db() throws -> Firestore {
        try Firestore.offline(transport: ScriptedTransport([]))
    }

    /// Fruit `id` named `name` (the query orders by name) at version `version` (its updateTime, in seconds).
    static func fruit(_ id: String, _ name: String, _ version: Int64 = 0) -> Document {
        let time = (try? Timestamp(seconds: 1_714_521_600 + version, nanos: 0)) ?? .minimum
        return Document(name: root + id, fields: ["name": .string(name)], createTime: .minimum, updateTime: time)
    }

    /// Feeds one listener's buffer as a feed does: each snapshot with its changes from the one before.
    final class Producer: Sendable {
        let query: Query
        let buffer: CoalescingBuffer<QuerySnapshot>
        let stream: AsyncThrowingStream<QuerySnapshot, any Error>
        private let previous = Mutex<[Document]?>(nil)

        init(query: Query, onEvent: @escaping @Sendable (FeedEvent) -> Void) {
            self.query = query
            (stream, buffer) = SnapshotCoalescing.makeQueryStream(query, onEvent: onEvent)
        }

        func publish(_ documents: [Document]) {
            let old = previous.withLock { previous in
                defer { previous = documents }
                return previous ?? []
            }
            let changes = DocumentChangeComputation.changes(
                from: old, to: documents, ordering: DocumentOrdering(query: query))
            let firestore = query.firestore
            buffer.yield(
                QuerySnapshot(
                    query: query, documents: documents.map { DocumentSnapshot(firestore: firestore, document: $0) },
                    documentChanges: changes.map {
                        DocumentChange(
                            type: $0.type, document: DocumentSnapshot(firestore: firestore, document: $0.document),
                            oldIndex: $0.oldIndex, newIndex: $0.newIndex)
                    }, readTime: nil))
        }
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

    static func ids(_ snapshot: QuerySnapshot) -> [String] { snapshot.documents.map(\.documentID) }

    @Test func aListenerThatKeepsUpGetsEverySnapshot() async throws {
        let events = Events()
        let producer = Producer(query: try Self.db().collection("fruits").order(by: "name")) { events.note($0) }
        var feed = producer.stream.makeAsyncIterator()
        producer.publish([Self.fruit("a", "A")])
        #expect(QueryPollerTests.changes(try #require(try await feed.next())) == [Change(.added, "a", nil, 0)])
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B")])
        #expect(QueryPollerTests.changes(try #require(try await feed.next())) == [Change(.added, "b", nil, 1)])
        producer.publish([Self.fruit("b", "B")])
        #expect(QueryPollerTests.changes(try #require(try await feed.next())) == [Change(.removed, "a", 0, nil)])
        #expect(events.list == [])
        #expect(producer.buffer.highWater == 1)
        #expect(producer.buffer.coalescedDeliveries == 0)
    }

    /// Modified twice while the listener was busy: one modification, from its first place to its last.
    @Test func modifiedTwiceIsOneModification() async throws {
        let events = Events()
        let producer = Producer(query: try Self.db().collection("fruits").order(by: "name")) { events.note($0) }
        var feed = producer.stream.makeAsyncIterator()
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B"), Self.fruit("c", "C")])
        _ = try await feed.next()
        producer.publish([Self.fruit("a", "A"), Self.fruit("c", "C"), Self.fruit("b", "D", 1)])
        producer.publish([Self.fruit("b", "0", 2), Self.fruit("a", "A"), Self.fruit("c", "C")])
        producer.publish([Self.fruit("a", "A"), Self.fruit("c", "C"), Self.fruit("b", "E", 3)])
        #expect(producer.buffer.bufferedCount == 1)
        let folded = try #require(try await feed.next())
        #expect(QueryPollerTests.changes(folded) == [Change(.modified, "b", 1, 2)])
        #expect(folded.documentChanges.first?.document.get("name") == .string("E"))
        #expect(Self.ids(folded) == ["a", "c", "b"])
        #expect(events.list == [.snapshotsCoalesced(count: 3)])
        #expect(producer.buffer.highWater == 1)
    }

    /// Added and removed again while the listener was busy: no change, so no snapshot; the next real change is
    /// delivered as usual.
    @Test func addedThenRemovedIsNothing() async throws {
        let events = Events()
        let producer = Producer(query: try Self.db().collection("fruits").order(by: "name")) { events.note($0) }
        var feed = producer.stream.makeAsyncIterator()
        producer.publish([Self.fruit("a", "A"), Self.fruit("c", "C")])
        _ = try await feed.next()
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B", 1), Self.fruit("c", "C")])
        producer.publish([Self.fruit("a", "A"), Self.fruit("c", "C")])
        let waiting = Task { [stream = producer.stream] in
            var feed = stream.makeAsyncIterator()
            return try await feed.next()
        }
        for _ in 0..<30_000 where events.list.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        #expect(events.list == [.snapshotsCoalesced(count: 2)])
        producer.publish([Self.fruit("a", "A"), Self.fruit("c", "C"), Self.fruit("d", "D", 2)])
        let next = try #require(try await waiting.value)
        #expect(QueryPollerTests.changes(next) == [Change(.added, "d", nil, 2)])
        #expect(Self.ids(next) == ["a", "c", "d"])
    }

    /// Removed and added again: a new version (its updateTime moved) is one modification; the same version is no
    /// change at all (the rules compare versions, not the path in between).
    @Test func removedThenAddedAgainIsModifiedOrNothing() async throws {
        let events = Events()
        let producer = Producer(query: try Self.db().collection("fruits").order(by: "name")) { events.note($0) }
        var feed = producer.stream.makeAsyncIterator()
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B"), Self.fruit("c", "C")])
        _ = try await feed.next()
        producer.publish([Self.fruit("a", "A"), Self.fruit("c", "C")])
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B", 4), Self.fruit("c", "C")])
        let modified = try #require(try await feed.next())
        #expect(QueryPollerTests.changes(modified) == [Change(.modified, "b", 1, 1)])

        producer.publish([Self.fruit("b", "B", 4), Self.fruit("c", "C")])
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B", 4), Self.fruit("c", "C")])
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B", 4), Self.fruit("c", "C"), Self.fruit("d", "D")])
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B", 4), Self.fruit("c", "C")])
        let waiting = Task { [stream = producer.stream] in
            var feed = stream.makeAsyncIterator()
            return try await feed.next()
        }
        for _ in 0..<30_000 where events.list.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(events.list == [.snapshotsCoalesced(count: 2), .snapshotsCoalesced(count: 4)])
        producer.buffer.finish()
        #expect(try await waiting.value == nil)
    }

    /// A mixed run: the folded snapshot's changes are exactly the rules applied from the listener's last snapshot
    /// to the newest, indexes included.
    @Test func missedSnapshotsFoldIntoTheChangesFromTheLastOneReceived() async throws {
        let events = Events()
        let producer = Producer(query: try Self.db().collection("fruits").order(by: "name")) { events.note($0) }
        var feed = producer.stream.makeAsyncIterator()
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B"), Self.fruit("c", "C"), Self.fruit("d", "D")])
        _ = try await feed.next()
        // b leaves, e arrives, c is renamed to the front, d twice, f comes and goes.
        producer.publish([Self.fruit("a", "A"), Self.fruit("c", "C"), Self.fruit("d", "D"), Self.fruit("e", "E", 1)])
        producer.publish([
            Self.fruit("c", "0", 2), Self.fruit("a", "A"), Self.fruit("d", "D"), Self.fruit("e", "E", 1),
            Self.fruit("f", "F", 2),
        ])
        producer.publish([
            Self.fruit("c", "0", 2), Self.fruit("a", "A"), Self.fruit("d", "D2", 3), Self.fruit("e", "E", 1),
        ])
        producer.publish([
            Self.fruit("c", "0", 2), Self.fruit("a", "A"), Self.fruit("e", "E", 1), Self.fruit("d", "Z", 4),
        ])
        let folded = try #require(try await feed.next())
        #expect(
            QueryPollerTests.changes(folded) == [
                Change(.removed, "b", 1, nil),
                Change(.added, "e", nil, 3),
                Change(.modified, "c", 1, 0),
                Change(.modified, "d", 2, 3),
            ])
        #expect(Self.ids(folded) == ["c", "a", "e", "d"])
        #expect(events.list == [.snapshotsCoalesced(count: 4)])
    }

    /// Missed before the first one was taken: one first snapshot, every document added.
    @Test func aFoldedFirstSnapshotListsEveryDocumentAsAdded() async throws {
        let events = Events()
        let producer = Producer(query: try Self.db().collection("fruits").order(by: "name")) { events.note($0) }
        var feed = producer.stream.makeAsyncIterator()
        producer.publish([Self.fruit("b", "B")])
        producer.publish([Self.fruit("a", "A"), Self.fruit("b", "B")])
        producer.publish([])
        let first = try #require(try await feed.next())
        #expect(first.documents.isEmpty)
        #expect(first.documentChanges.isEmpty)
        producer.publish([Self.fruit("c", "C")])
        #expect(QueryPollerTests.changes(try #require(try await feed.next())) == [Change(.added, "c", nil, 0)])
        #expect(events.list == [.snapshotsCoalesced(count: 3)])
    }

    /// The end and an error come after the snapshot kept; dropping the stream runs the termination handler once.
    @Test func theEndComesAfterTheSnapshotKeptAndDroppingTheStreamTerminates() async throws {
        let producer = Producer(query: try Self.db().collection("fruits").order(by: "name")) { _ in }
        var feed = producer.stream.makeAsyncIterator()
        producer.publish([Self.fruit("a", "A")])
        producer.buffer.finish(throwing: FirestoreError(code: .permissionDenied, message: "denied"))
        #expect(Self.ids(try #require(try await feed.next())) == ["a"])
        await #expect(throws: FirestoreError(code: .permissionDenied, message: "denied")) { _ = try await feed.next() }
        #expect(try await feed.next() == nil)

        let terminations = Mutex(0)
        do {
            let (stream, buffer) = SnapshotCoalescing.makeQueryStream(
                try Self.db().collection("fruits").query, onEvent: nil)
            buffer.setOnTermination { terminations.withLock { $0 += 1 } }
            buffer.yield(
                QuerySnapshot(
                    query: try Self.db().collection("fruits").query, documents: [], documentChanges: [], readTime: nil))
            _ = stream
        }
        #expect(terminations.withLock { $0 } == 1)
    }

    /// A consumer cancelled while it waits ends at once and leaves (the termination handler runs).
    @Test func cancellingAWaitingConsumerTerminates() async throws {
        let terminations = Mutex(0)
        let (stream, buffer) = SnapshotCoalescing.makeQueryStream(
            try Self.db().collection("fruits").query, onEvent: nil)
        buffer.setOnTermination { terminations.withLock { $0 += 1 } }
        let consumer = Task { () -> Int in
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        // Cancelled once it waits for a snapshot (however long its task takes to start).
        try await Self.waitUntil { buffer.isWaiting }
        consumer.cancel()
        #expect(try await consumer.value == 0)
        #expect(terminations.withLock { $0 } == 1)
        buffer.yield(
            QuerySnapshot(
                query: try Self.db().collection("fruits").query, documents: [], documentChanges: [], readTime: nil))
        #expect(buffer.bufferedCount == 0)
    }

    /// The poller on a manual clock: while the listener takes nothing and another keeps asking (polls are made on
    /// demand: without it there would be no poll at all), three polls change the result; the slow listener holds
    /// one snapshot (the poller's high-water mark is 1) and then gets one snapshot with the changes from the one it
    /// took, announced as three coalesced.
    @Test func aPollerListenerThatFallsBehindGetsOneSnapshot() async throws {
        let t0 = "2024-05-01T00:00:00Z"
        let t1 = "2024-05-01T00:00:01Z"
        let bodies = [
            RunQueryBody.make(readTime: "2024-05-01T00:00:10Z", [("a", t0, "A"), ("b", t0, "B")]),
            RunQueryBody.make(readTime: "2024-05-01T00:00:11Z", [("a", t0, "A"), ("b", t0, "B"), ("c", t0, "C")]),
            RunQueryBody.make(readTime: "2024-05-01T00:00:12Z", [("a", t0, "A"), ("c", t0, "C")]),
            RunQueryBody.make(readTime: "2024-05-01T00:00:13Z", [("a", t0, "A"), ("c", t0, "C"), ("d", t1, "D")]),
        ]
        let transport = ScriptedTransport(bodies.map { .response(status: 200, body: $0) })
        let clock = ManualClock()
        let events = Events()
        let pool = PollerPool(clock: clock)
        let db = try Firestore.offline(transport: transport)
        var feed = pool.snapshots(
            of: db.collection("fruits").order(by: "name"), mode: .full,
            policy: QueryPollerTests.policy(.seconds(1))
        ) { events.note($0) }
        .makeAsyncIterator()
        #expect(Self.ids(try #require(try await feed.next())) == ["a", "b"])
        let keeper = pool.snapshots(
            of: db.collection("fruits").order(by: "name"), mode: .full,
            policy: QueryPollerTests.policy(.seconds(1)))
        let keeping = Task {
            for try await _ in keeper {}
        }
        defer { keeping.cancel() }
        for poll in 2...4 {
            try await Self.waitUntil { clock.sleeperCount == 1 && transport.requests.count == poll - 1 }
            clock.advance(by: .seconds(1))
        }
        try await Self.waitUntil { clock.sleeperCount == 1 && transport.requests.count == 4 }
        let poller = try #require(pool.firstPollerForTesting)
        #expect(poller.listenerBufferHighWater == 1)
        let folded = try #require(try await feed.next())
        #expect(
            QueryPollerTests.changes(folded) == [
                Change(.removed, "b", 1, nil), Change(.added, "c", nil, 1), Change(.added, "d", nil, 2),
            ])
        #expect(Self.ids(folded) == ["a", "c", "d"])
        #expect(folded.readTime == (try Timestamp(rfc3339: "2024-05-01T00:00:13Z")))
        #expect(events.list == [.snapshotsCoalesced(count: 3)])
        #expect(poller.listenerBufferHighWater == 1)
    }

    /// Polls `condition` every millisecond for up to 30 s.
    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<30_000 where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }
}
