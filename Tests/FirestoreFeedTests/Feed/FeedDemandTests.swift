import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

/// Issue 17: a consumer that stops asking without dropping its iterator (a `break` out of `for try await` in the
/// top-level code of a `main.swift`, whose iterator is never released) must stop the feed behind it. Feeds work on
/// demand: a poller polls only while a listener waits; a Listen target none of whose listeners asked for a while
/// is suspended and resumed from its resume token when one asks again. Manual clocks and scripted transports: no
/// network, no sleeping (`FeedLeaveLiveTests` checks both forms of the loop against the emulator).
@Suite(.timeLimit(.minutes(2))) struct FeedDemandTests {
    typealias Change = QueryPollerTests.Change

    static let root = "projects/p/databases/(default)/documents/fruits/"

    static func ids(_ snapshot: QuerySnapshot) -> [String] { snapshot.documents.map(\.documentID) }

    static func time(_ seconds: Int64) throws -> Timestamp { try Timestamp(seconds: 1_714_521_600 + seconds, nanos: 0) }

    static func fruit(_ id: String, _ name: String) throws -> Document {
        Document(name: root + id, fields: ["name": .string(name)], createTime: try time(0), updateTime: try time(0))
    }

    /// Polls `condition` every millisecond for up to 30 s.
    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<30_000 where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }

    // MARK: The buffer's demand

    @Test func theBufferTellsWhenItsConsumerAsks() async throws {
        let db = try Firestore.offline(transport: ScriptedTransport([]))
        let query = db.collection("fruits").order(by: "name").query
        let (stream, buffer) = SnapshotCoalescing.makeQueryStream(query, onEvent: nil)
        let demands = Mutex(0)
        buffer.setOnDemand { demands.withLock { $0 += 1 } }
        #expect(!buffer.isWaiting)
        let relay = Task { await buffer.wanted() }
        let consumer = Task { () -> [String]? in
            var feed = stream.makeAsyncIterator()
            return try await feed.next().map(Self.ids)
        }
        #expect(await relay.value == true)
        try await Self.waitUntil { buffer.isWaiting }
        #expect(demands.withLock { $0 } == 1)
        #expect(buffer.demandCount == 1)
        buffer.yield(QuerySnapshot(query: query, documents: [], documentChanges: [], readTime: nil))
        #expect(try await consumer.value == [])
        #expect(!buffer.isWaiting)
        buffer.finish()
        #expect(await buffer.wanted() == false)
    }

    /// A rebased snapshot (every document added) reaches a consumer that has snapshots as the changes from the
    /// last one it received; one that changes nothing is not delivered, and neither is announced as coalesced.
    @Test func aRebasedSnapshotIsExpressedRelativeToTheLastOneReceived() async throws {
        let db = try Firestore.offline(transport: ScriptedTransport([]))
        let query = db.collection("fruits").order(by: "name").query
        let events = Mutex<[FeedEvent]>([])
        let (stream, buffer) = SnapshotCoalescing.makeQueryStream(query) { event in
            events.withLock { $0.append(event) }
        }
        func everyoneAdded(_ documents: [Document]) -> QuerySnapshot {
            let snapshots = documents.map { DocumentSnapshot(firestore: db, document: $0) }
            return QuerySnapshot(
                query: query, documents: snapshots,
                documentChanges: snapshots.enumerated().map {
                    DocumentChange(type: .added, document: $1, oldIndex: nil, newIndex: $0)
                }, readTime: nil)
        }
        var feed = stream.makeAsyncIterator()
        buffer.yield(everyoneAdded([try Self.fruit("a", "A"), try Self.fruit("b", "B")]))
        #expect(QueryPollerTests.changes(try #require(try await feed.next())).count == 2)
        buffer.yield(everyoneAdded([try Self.fruit("a", "A"), try Self.fruit("b", "B")]), rebased: true)
        buffer.yield(everyoneAdded([try Self.fruit("a", "A"), try Self.fruit("b", "B"), try Self.fruit("c", "C")]))
        // The two were folded (two yields): one snapshot, announced as two coalesced.
        let folded = try #require(try await feed.next())
        #expect(QueryPollerTests.changes(folded) == [Change(.added, "c", nil, 2)])
        let waiting = Task { [stream] () -> [Change]? in
            var again = stream.makeAsyncIterator()
            return try await again.next().map(QueryPollerTests.changes)
        }
        try await Self.waitUntil { buffer.isWaiting }
        // Handed to a waiting consumer, a rebased snapshot that changes nothing is not delivered ...
        buffer.yield(
            everyoneAdded([try Self.fruit("a", "A"), try Self.fruit("b", "B"), try Self.fruit("c", "C")]),
            rebased: true)
        try await Self.waitUntil { buffer.demandCount == 2 }
        // ... and one that does is delivered as what changed.
        buffer.yield(everyoneAdded([try Self.fruit("b", "B"), try Self.fruit("c", "C")]), rebased: true)
        #expect(try await waiting.value == [Change(.removed, "a", 0, nil)])
        #expect(events.withLock { $0 } == [.snapshotsCoalesced(count: 2)])
    }

    // MARK: Polling

    /// After its first snapshot the consumer stops asking (its iterator kept, as at top level): the poller makes
    /// no request however long it waits, and polls at once when the consumer asks again.
    @Test func aListenerThatStopsAskingStopsThePolling() async throws {
        let transport = ScriptedTransport { _, index in
            let readTime = "2024-05-01T00:00:\(String(format: "%02d", 10 + index))Z"
            return HTTPResponse(
                status: 200,
                body: Data(RunQueryBody.make(readTime: readTime, [("a", "2024-05-01T00:00:00Z", "A")]).utf8))
        }
        let db = try Firestore.offline(transport: transport)
        let clock = ManualClock()
        let pool = PollerPool(clock: clock)
        let stream = pool.snapshots(
            of: db.collection("fruits").order(by: "name").query, mode: .full,
            policy: QueryPollerTests.policy(.seconds(1)))
        var feed = stream.makeAsyncIterator()
        #expect(Self.ids(try #require(try await feed.next())) == ["a"])
        try #require(await clock.waitForSleepers(1))
        #expect(transport.requests.count == 1)
        clock.advance(by: .seconds(1))
        let poller = try #require(pool.firstPollerForTesting)
        try await Self.waitUntil { poller.isAwaitingDemand }
        for _ in 0..<5 { clock.advance(by: .seconds(1)) }
        #expect(transport.requests.count == 1)
        #expect(clock.sleeperCount == 0)

        let asking = Task { [stream] in
            var again = stream.makeAsyncIterator()
            return try await again.next()
        }
        try await Self.waitUntil { transport.requests.count == 2 }
        try #require(await clock.waitForSleepers(1))
        #expect(transport.requests.count == 2)
        #expect(pool.pollerCount == 1)
        asking.cancel()
        #expect(try await asking.value == nil)
    }

    /// Delta polling on demand (the in-memory versioned server, a manual clock): a consumer that pauses for ten
    /// intervals costs no poll meanwhile, and when it asks again one delta poll (the delta runQuery and the count,
    /// no keys scan) brings every change made during the pause, found from the previous `readTime` minus the margin
    /// however long ago that was. So a slow consumer is polled at its own pace in delta mode too.
    @Test func aDeltaFeedIsPolledAtItsConsumersPace() async throws {
        let server = DeltaPollTests.seeded(3)
        let db = try server.firestore()
        let clock = ManualClock()
        let pool = PollerPool(clock: clock)
        let polls = Mutex<[PollStatistics]>([])
        let stream = pool.snapshots(
            of: db.collection("items").order(by: "rank").query, mode: DeltaPollTests.delta(),
            policy: PollingPolicy(interval: .seconds(1), jitter: 0)
        ) { event in
            if case .polled(let statistics) = event { polls.withLock { $0.append(statistics) } }
        }
        var feed = stream.makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(Self.ids(first) == ["d0000", "d0001", "d0002"])
        #expect(polls.withLock { $0.map(\.keysScan) } == [.firstPoll])
        let requestsBefore = server.requests.count

        try #require(await clock.waitForSleepers(1))
        let poller = try #require(pool.firstPollerForTesting)
        for second in 1...10 {
            server.now = DeltaPollTests.time(Int64(second) * 1000)
            if second == 3 {
                server.write(
                    "d0001", ["group": "a", "rank": 1, "note": "ripe"], requestTime: DeltaPollTests.time(3000),
                    commitTime: DeltaPollTests.time(3020))
            }
            if second == 6 {
                server.write(
                    "d0003", ["group": "a", "rank": 3], requestTime: DeltaPollTests.time(6000),
                    commitTime: DeltaPollTests.time(6010))
            }
            clock.advance(by: .seconds(1))
            try await Self.waitUntil { poller.isAwaitingDemand }
        }
        #expect(server.requests.count == requestsBefore)
        #expect(polls.withLock { $0.count } == 1)

        let next = try #require(try await feed.next())
        #expect(Self.ids(next) == ["d0000", "d0001", "d0002", "d0003"])
        #expect(QueryPollerTests.changes(next) == [Change(.added, "d0003", nil, 3), Change(.modified, "d0001", 1, 1)])
        #expect(Array(server.requests.dropFirst(requestsBefore)) == ["runQuery", "runAggregationQuery"])
        let resumed = try #require(polls.withLock { $0.last })
        #expect(resumed.keysScan == nil)
        #expect(resumed.documentsFetched == 2)
        #expect(polls.withLock { $0.count } == 2)
    }

    // MARK: Listen

    static func listenResponses(_ documents: [Document], token: [UInt8], readTime: Int64, adding: Bool) throws
        -> [ListenResponse]
    {
        (adding ? [.targetChange(ListenTargetChange(kind: .add, targetIDs: [1]))] : [])
            + documents.map { .documentChange(ListenDocumentChange(document: $0, targetIDs: [1])) }
            + [
                .targetChange(ListenTargetChange(kind: .current, targetIDs: [1], resumeToken: token)),
                .targetChange(ListenTargetChange(kind: .noChange, readTime: try time(readTime))),
            ]
    }

    /// The consumer takes the first snapshot and stops asking, and banana arrives: with the snapshot left untaken,
    /// the second idle sweep (half the timeout apart) removes the target, and the stream, with no target left,
    /// ends. The consumer then takes the snapshot it holds; when it asks again a new call adds the target with
    /// its resume token, and the next snapshot lists only what changed meanwhile.
    @Test func anIdleListenTargetIsSuspendedAndResumedFromItsResumeToken() async throws {
        let transport = ScriptedListenTransport()
        let db = try Firestore.offline(transport: transport)
        let clock = ManualClock()
        let pool = WatchStreamPool(clock: clock, idleTimeout: .seconds(10))
        let query = db.collection("fruits").order(by: "name")
        let stream = pool.snapshots(of: query.query, policy: PollingPolicy(), onEvent: nil)
        var feed = stream.makeAsyncIterator()
        let call = try #require(await transport.waitForCall(1))
        await call.waitForSent(1)
        let add = ListenRequest(adding: try ListenTarget(query: query, targetID: 1), database: db.database.name)
        #expect(call.sent == [add])
        call.respond(
            try Self.listenResponses([try Self.fruit("apple", "Apple")], token: [1], readTime: 1, adding: true))
        #expect(Self.ids(try #require(try await feed.next())) == ["apple"])
        call.respond(
            try Self.listenResponses([try Self.fruit("banana", "Banana")], token: [2], readTime: 2, adding: false))
        try await Self.waitUntil { pool.stream(for: db)?.listenerBufferHighWater == 1 }

        try #require(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(5))
        try #require(await clock.waitForSleepers(1))
        #expect(call.sent.count == 1)
        clock.advance(by: .seconds(5))
        try await Self.waitUntil { pool.streamCount == 0 }
        #expect(call.sent == [add, ListenRequest(removing: 1, database: db.database.name)])
        #expect(call.isCancelled)

        let held = try #require(try await feed.next())
        #expect(QueryPollerTests.changes(held) == [Change(.added, "banana", nil, 1)])
        #expect(transport.calls.count == 1)
        let asking = Task { [stream] in
            var again = stream.makeAsyncIterator()
            return try await again.next()
        }
        let resumed = try #require(await transport.waitForCall(2))
        await resumed.waitForSent(1)
        #expect(
            resumed.sent == [
                ListenRequest(
                    // Resumed with the documents it holds, so the server may answer a mismatch with a bloom filter.
                    adding: try ListenTarget(
                        query: query, targetID: 1, resumePoint: .resumeToken([2]), expectedCount: 2),
                    database: db.database.name)
            ])
        resumed.respond(
            try Self.listenResponses([try Self.fruit("cherry", "Cherry")], token: [3], readTime: 3, adding: true))
        let next = try #require(try await asking.value)
        #expect(QueryPollerTests.changes(next) == [Change(.added, "cherry", nil, 2)])
        #expect(Self.ids(next) == ["apple", "banana", "cherry"])
        #expect(pool.streamCount == 1)
    }

    /// A consumer that is busy while nothing changes keeps its target (it costs nothing): a test that watches the
    /// feed's events between snapshots, say.
    @Test func aBusyListenerWithNothingNewKeepsItsTarget() async throws {
        let transport = ScriptedListenTransport()
        let db = try Firestore.offline(transport: transport)
        let clock = ManualClock()
        let pool = WatchStreamPool(clock: clock, idleTimeout: .seconds(10))
        var feed = pool.snapshots(of: db.collection("fruits").query, policy: PollingPolicy(), onEvent: nil)
            .makeAsyncIterator()
        let call = try #require(await transport.waitForCall(1))
        call.respond(
            try Self.listenResponses([try Self.fruit("apple", "Apple")], token: [1], readTime: 1, adding: true))
        #expect(Self.ids(try #require(try await feed.next())) == ["apple"])
        for _ in 0..<6 {
            try #require(await clock.waitForSleepers(1))
            clock.advance(by: .seconds(5))
        }
        try #require(await clock.waitForSleepers(1))
        #expect(call.sent.count == 1)
        #expect(pool.streamCount == 1)
    }

    /// A consumer waiting for its next snapshot is never idle, however long nothing changes.
    @Test func aWaitingListenerKeepsItsTarget() async throws {
        let transport = ScriptedListenTransport()
        let db = try Firestore.offline(transport: transport)
        let clock = ManualClock()
        let pool = WatchStreamPool(clock: clock, idleTimeout: .seconds(10))
        let stream = pool.snapshots(of: db.collection("fruits").query, policy: PollingPolicy(), onEvent: nil)
        let consumer = Task { [stream] () -> Int in
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        let call = try #require(await transport.waitForCall(1))
        call.respond(
            try Self.listenResponses([try Self.fruit("apple", "Apple")], token: [1], readTime: 1, adding: true))
        for _ in 0..<6 {
            try #require(await clock.waitForSleepers(1))
            clock.advance(by: .seconds(5))
        }
        try #require(await clock.waitForSleepers(1))
        #expect(call.sent.count == 1)
        #expect(pool.streamCount == 1)
        consumer.cancel()
        #expect(try await consumer.value == 1)
        try await Self.waitUntil { pool.streamCount == 0 }
        #expect(call.sent.count == 2)
    }
}
