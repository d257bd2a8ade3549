import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

/// Issue 5's feed behaviour over scripted transports and test clocks: no network, no real sleeping.
@Suite(.timeLimit(.minutes(2))) struct FeedBehaviourTests {
    static let t0 = "2024-05-01T00:00:00Z"
    static let t1 = "2024-05-01T00:00:01Z"

    static func db(_ transport: some HTTPTransport) throws -> Firestore {
        try Firestore.offline(transport: transport)
    }

    /// Keys mode fetches only new or changed documents, at the keys query's read time.
    @Test func twoPhasePollingFetchesOnlyWhatChanged() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body: RunQueryBody.keys(
                    readTime: "2024-05-01T00:00:05Z",
                    [("a", Self.t0), ("b", Self.t0)])),
            .response(
                status: 200,
                body: RunQueryBody.batchGet(
                    readTime: "2024-05-01T00:00:05Z",
                    [("a", Self.t0, "A"), ("b", Self.t0, "B")])),
            .response(
                status: 200,
                body: RunQueryBody.keys(
                    readTime: "2024-05-01T00:00:06Z",
                    [("a", Self.t0), ("b", Self.t1), ("c", Self.t1)])),
            .response(
                status: 200,
                body: RunQueryBody.batchGet(
                    readTime: "2024-05-01T00:00:06Z",
                    [("c", Self.t1, "C"), ("b", Self.t1, "B2")])),
        ])
        let query = try Self.db(transport).collection("fruits").query
        var feed = PollerPool(clock: ImmediateClock()).snapshots(
            of: query, mode: .keys,
            policy: QueryPollerTests.policy(.seconds(1))
        )
        .makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(first.documents.map { $0.get("name") } == [.string("A"), .string("B")])
        #expect(first.statistics?.mode == .keys)
        #expect(first.statistics?.requests == 2)
        #expect(first.statistics?.documentsFetched == 2)
        let second = try #require(try await feed.next())
        #expect(second.documentChanges.map(\.type) == [.added, .modified])
        #expect(second.documentChanges.map(\.document.documentID) == ["c", "b"])
        #expect(second.documents.map { $0.get("name") } == [.string("A"), .string("B2"), .string("C")])
        #expect(second.statistics?.documentsFetched == 2)

        let requests = transport.requests.prefix(4)
        let bodies = try requests.map { try JSONValue.parse($0.body ?? Data()) }
        #expect(
            bodies[0]
                == (try JSONValue.parse(
                    """
                    {"structuredQuery":{"from":[{"collectionId":"fruits"}],"select":{"fields":[{"fieldPath":"__name__"}]}}}
                    """)))
        #expect(
            bodies[3]
                == (try JSONValue.parse(
                    """
                    {"documents":["projects/p/databases/(default)/documents/fruits/b",
                                  "projects/p/databases/(default)/documents/fruits/c"],
                     "readTime":"2024-05-01T00:00:06Z"}
                    """)))
        #expect(requests.map { $0.url.hasSuffix(":batchGet") } == [false, true, false, true])
    }

    /// An unchanged keys poll is one request and fetches nothing. (The consumer keeps waiting: polls are made on
    /// demand.)
    @Test func unchangedKeysPollIsOneRequest() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport([
            .response(status: 200, body: RunQueryBody.keys(readTime: "2024-05-01T00:00:05Z", [("a", Self.t0)])),
            .response(
                status: 200, body: RunQueryBody.batchGet(readTime: "2024-05-01T00:00:05Z", [("a", Self.t0, "A")])),
            .response(status: 200, body: RunQueryBody.keys(readTime: "2024-05-01T00:00:06Z", [("a", Self.t0)])),
        ])
        let query = try Self.db(transport).collection("fruits").query
        let stream = PollerPool(clock: clock).snapshots(of: query, policy: QueryPollerTests.policy(.seconds(1)))
        let snapshots = Mutex(0)
        let consumer = Task {
            for try await _ in stream { snapshots.withLock { $0 += 1 } }
        }
        defer { consumer.cancel() }
        for _ in 0..<30_000 where snapshots.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try #require(await clock.waitForSleepers(1))
        #expect(transport.requests.count == 2)
        clock.advance(by: .seconds(1))
        for _ in 0..<30_000 where transport.requests.count < 3 { try await Task.sleep(for: .milliseconds(1)) }
        try #require(await clock.waitForSleepers(1))
        #expect(transport.requests.count == 3)
        #expect(transport.requests.last?.url.hasSuffix(":runQuery") == true)
        #expect(snapshots.withLock { $0 } == 1)
    }

    /// 100 listeners on one query share one poller: one request per interval, and each gets the snapshot. (A 101st
    /// keeps waiting: polls are made on demand.)
    @Test func sharedPollerMakesOneRequestPerInterval() async throws {
        let clock = ManualClock()
        let body = RunQueryBody.make(readTime: Self.t1, [("a", Self.t0, "A")])
        let transport = ScriptedTransport(Array(repeating: .response(status: 200, body: body), count: 3))
        let db = try Self.db(transport)
        let pool = PollerPool(clock: clock)
        let policy = QueryPollerTests.policy(.seconds(2))
        var iterators: [AsyncThrowingStream<QuerySnapshot, any Error>.Iterator] = []
        for _ in 0..<100 {
            let query = db.collection("fruits").whereField("name", isEqualTo: "A")
            iterators.append(pool.snapshots(of: query, mode: .full, policy: policy).makeAsyncIterator())
        }
        #expect(pool.pollerCount == 1)
        for index in iterators.indices {
            let snapshot = try #require(try await iterators[index].next())
            #expect(snapshot.documentChanges.map(\.type) == [.added])
        }
        let waiting = pool.snapshots(
            of: db.collection("fruits").whereField("name", isEqualTo: "A"), mode: .full, policy: policy)
        let consumer = Task {
            for try await _ in waiting {}
        }
        try #require(await clock.waitForSleepers(1))
        #expect(transport.requests.count == 1)
        clock.advance(by: .seconds(2))
        for _ in 0..<30_000 where transport.requests.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        try #require(await clock.waitForSleepers(1))
        #expect(transport.requests.count == 2)
        #expect(pool.pollerCount == 1)
        consumer.cancel()
        _ = await consumer.result
        iterators.removeAll()
        // The poller is freed by the streams' termination handlers, which run on other tasks: waited for as long
        // as the machine needs (60 s guards against a hang only).
        #expect(await eventually(seconds: 60) { pool.pollerCount == 0 })
    }

    /// Back-off: 1 s, then 2 s raised to the server's Retry-After of 7 s, then 4 s, then the interval again.
    @Test func errorBackoffHonoursRetryAfter() async throws {
        let clock = CountingClock()
        let unavailable = #"{"error":{"code":503,"status":"UNAVAILABLE"}}"#
        let transport = ScriptedTransport([
            .response(status: 200, body: RunQueryBody.make(readTime: Self.t1, [])),
            .response(status: 503, body: unavailable),
            .responseWithHeaders(
                status: 429, headers: [HTTPHeader("Retry-After", "7")],
                body: #"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}"#),
            .response(status: 503, body: unavailable),
            .response(status: 200, body: RunQueryBody.make(readTime: "2024-05-01T00:00:09Z", [("a", Self.t0, "A")])),
        ])
        let events = ErrorLog()
        let policy = PollingPolicy(
            interval: .milliseconds(500),
            errorBackoff: .init(initial: .seconds(1), multiplier: 2, maximum: .seconds(60)),
            jitter: 0)
        var feed = PollerPool(clock: clock).snapshots(
            of: try Self.db(transport).collection("fruits").query, mode: .full, policy: policy
        ) { events.append($0) }.makeAsyncIterator()
        _ = try await feed.next()
        let recovered = try #require(try await feed.next())
        #expect(recovered.documentChanges.map(\.type) == [.added])
        #expect(
            Array(clock.requestedDelays.prefix(4))
                == [.milliseconds(500), .seconds(1), .seconds(7), .seconds(4)])
        #expect(events.codes == [.unavailable, .resourceExhausted, .unavailable])
        #expect(events.all.last == .recovered)
    }

    /// The server refusing the keys projection makes the feed fall back to whole documents, once.
    @Test func refusedProjectionFallsBackToFullDocuments() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 400, body: #"{"error":{"code":400,"message":"projection refused","status":"INVALID_ARGUMENT"}}"#
            ),
            .response(status: 200, body: RunQueryBody.make(readTime: Self.t1, [("a", Self.t0, "A")])),
        ])
        let events = ErrorLog()
        var feed = PollerPool(clock: ImmediateClock()).snapshots(
            of: try Self.db(transport).collection("fruits").query, mode: .keys,
            policy: QueryPollerTests.policy(.seconds(1))
        ) { events.append($0) }.makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(first.statistics?.mode == .full)
        #expect(first.documents.map(\.documentID) == ["a"])
        #expect(events.all == [.fellBackToFullDocuments(reason: "invalid-argument (HTTP 400): projection refused")])
    }

    /// Leaving stops polling, cancels the in-flight request and frees the poller.
    @Test func cancellationStopsPollingAndFreesThePoller() async throws {
        let transport = HangingTransport()
        let pool = PollerPool(clock: ImmediateClock())
        weak var weakPoller: QueryPoller?
        do {
            let stream = pool.snapshots(of: try Self.db(transport).collection("fruits").query, mode: .full)
            let consumer = Task { for try await _ in stream {} }
            try #require(await transport.waitForRequest())
            #expect(pool.pollerCount == 1)
            weakPoller = pool.firstPollerForTesting
            consumer.cancel()
            _ = await consumer.result
        }
        // The request's task sees the cancellation and the pool lets the poller go on tasks of their own: waited
        // for as long as the machine needs (60 s guards against a hang only).
        #expect(
            await eventually(seconds: 60) { transport.sawCancellation && pool.pollerCount == 0 && weakPoller == nil })
        #expect(transport.sawCancellation)
        #expect(pool.pollerCount == 0)
        #expect(weakPoller == nil)
    }

    /// limit(toLast:) feeds list documents in the user's order.
    @Test func limitToLastFeedKeepsTheUsersOrder() async throws {
        // The request is flipped (name DESC), so the server answers c, b; the feed shows b, c.
        let transport = ScriptedTransport([
            .response(
                status: 200, body: RunQueryBody.make(readTime: Self.t1, [("c", Self.t0, "C"), ("b", Self.t0, "B")]))
        ])
        let query = try Self.db(transport).collection("fruits").order(by: "name").limit(toLast: 2)
        var feed = PollerPool(clock: ImmediateClock()).snapshots(of: query, mode: .full).makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(first.documents.map(\.documentID) == ["b", "c"])
        #expect(first.documentChanges.map(\.newIndex) == [0, 1])
    }

    @Test func policyDelays() {
        let policy = PollingPolicy(
            interval: .seconds(1),
            idleBackoff: .init(afterUnchangedPolls: 2, factor: 2, maximum: .seconds(5)),
            errorBackoff: .init(initial: .seconds(1), multiplier: 3, maximum: .seconds(20)),
            jitter: 0.2)
        #expect(
            (0...6).map { policy.delay(afterUnchangedPolls: $0) }
                == [.seconds(1), .seconds(1), .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        #expect(
            (1...5).map { policy.delay(afterFailures: $0, retryAfter: nil) }
                == [.seconds(1), .seconds(3), .seconds(9), .seconds(20), .seconds(20)])
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(30)) == .seconds(30))
        #expect(policy.jittered(.seconds(10), random: 0) == .seconds(8))
        #expect(policy.jittered(.seconds(10), random: 0.5) == .seconds(10))
    }
}

/// A transport whose requests hang until cancelled.
final class HangingTransport: HTTPTransport {
    private let state = Mutex((requests: 0, cancelled: false))

    var sawCancellation: Bool { state.withLock { $0.cancelled } }

    /// Waits (polling every millisecond) until a request arrived, as long as the machine needs up to `seconds`
    /// (a guard against a hang only); true when one did.
    func waitForRequest(seconds: Int = 60) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while state.withLock({ $0.requests }) == 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return state.withLock { $0.requests } > 0
    }

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        state.withLock { $0.requests += 1 }
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
        state.withLock { $0.cancelled = true }
        throw FirestoreError(code: .cancelled, message: "cancelled")
    }
}
