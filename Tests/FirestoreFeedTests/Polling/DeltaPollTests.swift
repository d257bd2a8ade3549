import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// One delta poll at a time (`PollFetcher` with ``PollMode/delta(field:margin:reconcileInterval:)``) on the
/// in-memory versioned server: what each poll asks, what it bills, when it scans, and why the margin exists.
@Suite(.timeLimit(.minutes(2))) struct DeltaPollTests {
    static func time(_ milliseconds: Int64) -> Timestamp { DeltaDifferentialTests.time(milliseconds) }
    static func delta(margin: Duration = .milliseconds(500), reconcile: Duration = .seconds(600)) -> PollMode {
        .delta(field: "updatedAt", margin: margin, reconcileInterval: reconcile)
    }

    /// A server holding `count` documents `d0000`... in group `a`, committed before time 0.
    static func seeded(_ count: Int) -> VersionedFirestore {
        let server = VersionedFirestore(now: time(0))
        for index in 0..<count {
            server.write(
                String(format: "d%04d", index), ["group": "a", "rank": .integer(Int64(index))],
                requestTime: time(-5000), commitTime: time(-4950))
        }
        return server
    }

    /// Polls `query` at server time `milliseconds`.
    static func poll(
        _ server: VersionedFirestore, _ query: Query, at milliseconds: Int64, _ mode: PollMode, after state: PollState
    ) async throws -> PollFetcher.Result {
        server.now = time(milliseconds)
        return try await PollFetcher(query: query).fetch(mode: mode, previous: state)
    }

    /// The cost rule of issue 18 at 2,500 documents (`PollCostLiveTests` and the `poll-cost` benchmark measure
    /// 10,000 on the emulator): an unchanged query is billed 1 + ceil(2,500 / 1,000) = 4 reads per delta poll
    /// (keys: 2,500); with one document changed still 4 (the runQuery bills its one document instead of the
    /// minimum of one), within the bound of one more plus what the margin re-reads.
    @Test func anUnchangedQueryIsBilledOneReadPlusOnePerThousandCounted() async throws {
        let server = Self.seeded(2_500)
        let query = try server.firestore().collection("items").query
        let first = try await Self.poll(server, query, at: 0, Self.delta(), after: PollState())
        #expect(first.statistics.keysScan == .firstPoll)
        #expect(first.statistics.billedReads == 2_500)
        #expect(first.documents.count == 2_500)
        let unchanged = try await Self.poll(server, query, at: 1000, Self.delta(), after: first.state)
        #expect(unchanged.statistics.billedReads == 4)
        #expect(unchanged.statistics.requests == 2)
        #expect(unchanged.statistics.keysScan == nil)
        #expect(unchanged.documents == first.documents)
        server.write("d0042", ["group": "a", "rank": 42], requestTime: Self.time(1200), commitTime: Self.time(1230))
        let changed = try await Self.poll(server, query, at: 2000, Self.delta(), after: unchanged.state)
        #expect(changed.statistics.billedReads == 4)
        #expect(changed.statistics.documentsFetched == 1)
        #expect(changed.statistics.marginRereads == 0)
        #expect(changed.documents[42].updateTime == Self.time(1230))
        #expect(Array(server.requests.suffix(2)) == ["runQuery", "runAggregationQuery"])
        let keys = try await Self.poll(server, query, at: 3000, .keys, after: changed.state)
        #expect(keys.statistics.billedReads == 2_500)
    }

    /// A document written inside the margin is returned again by the next poll, billed, and not a change.
    @Test func documentsFoundAgainInsideTheMarginAreBilledButUnchanged() async throws {
        let server = Self.seeded(3)
        let query = try server.firestore().collection("items").query
        let first = try await Self.poll(server, query, at: 0, Self.delta(), after: PollState())
        server.write("d0001", ["group": "a", "rank": 7], requestTime: Self.time(900), commitTime: Self.time(920))
        let second = try await Self.poll(server, query, at: 1000, Self.delta(), after: first.state)
        #expect(second.statistics.marginRereads == 0)
        let third = try await Self.poll(server, query, at: 1300, Self.delta(), after: second.state)
        #expect(third.statistics.marginRereads == 1)
        #expect(third.statistics.billedReads == 1 + 1)
        #expect(third.documents == second.documents)
    }

    /// The emulator quirk the margin exists for: a write requested before a poll's `readTime` (its field holds the
    /// request time) but committed after it is found by the next poll only with a margin; with none it is missed,
    /// and the next reconciling scan finds it out of date (drift 1) and repairs the result.
    @Test(arguments: [Duration.milliseconds(500), .zero])
    func aWriteCommittedAfterThePollWithAnEarlierFieldTimeNeedsTheMargin(margin: Duration) async throws {
        let server = Self.seeded(3)
        let query = try server.firestore().collection("items").query
        let mode = Self.delta(margin: margin, reconcile: .seconds(2))
        let first = try await Self.poll(server, query, at: 0, mode, after: PollState())
        server.write("d0002", ["group": "a", "rank": 9], requestTime: Self.time(990), commitTime: Self.time(1040))
        let second = try await Self.poll(server, query, at: 1000, mode, after: first.state)
        #expect(second.documents[2].updateTime == Self.time(-4950))
        let third = try await Self.poll(server, query, at: 2000, mode, after: second.state)
        if margin == .zero {
            #expect(third.documents[2].updateTime == Self.time(-4950))  // missed
            let reconciled = try await Self.poll(server, query, at: 3000, mode, after: third.state)
            #expect(reconciled.statistics.keysScan == .reconcile)
            #expect(reconciled.statistics.drift == 1)
            #expect(reconciled.documents[2].updateTime == Self.time(1040))
        } else {
            #expect(third.documents[2].updateTime == Self.time(1040))
            #expect(third.statistics.keysScan == nil)
        }
    }

    /// A writer that does not set the tracking field is caught by the reconciling scan, which reports it.
    @Test func anUnstampedWriteIsDriftFoundByTheReconcilingScan() async throws {
        let server = Self.seeded(5)
        let query = try server.firestore().collection("items").query
        let mode = Self.delta(reconcile: .seconds(3))
        var state = try await Self.poll(server, query, at: 0, mode, after: PollState()).state
        server.write(
            "d0003", ["group": "a", "rank": 3], requestTime: Self.time(500), commitTime: Self.time(510), stamped: false)
        var drifts: [Int?] = []
        var scans: [PollStatistics.KeysScan?] = []
        for second in 1...4 {
            let result = try await Self.poll(server, query, at: Int64(second) * 1000, mode, after: state)
            drifts.append(result.statistics.drift)
            scans.append(result.statistics.keysScan)
            state = result.state
        }
        #expect(scans == [nil, nil, nil, .reconcile])
        #expect(drifts == [nil, nil, nil, 1])
        #expect(state.documents[3].updateTime == Self.time(510))
    }

    /// A deletion or a document leaving the result changes the count: the poll falls back to a keys scan at the
    /// same `readTime`, fetching nothing it already has.
    @Test func aDocumentLeavingMakesTheCountDifferAndThePollScan() async throws {
        let server = Self.seeded(4)
        let query = try server.firestore().collection("items").whereField("group", isEqualTo: "a")
        let first = try await Self.poll(server, query, at: 0, Self.delta(), after: PollState())
        server.delete("d0001", commitTime: Self.time(300))
        server.write("d0002", ["group": "b", "rank": 2], requestTime: Self.time(400), commitTime: Self.time(420))
        let second = try await Self.poll(server, query, at: 1000, Self.delta(), after: first.state)
        #expect(second.statistics.keysScan == .countDiffers(counted: 2, expected: 4))
        #expect(second.documents.map(\.id) == ["d0000", "d0003"])
        #expect(server.requests.suffix(3) == ["runQuery", "runAggregationQuery", "runQuery"])
        #expect(second.statistics.billedReads == 1 + 1 + 2)
    }

    /// In a full `limit` window the count ends at the window's edge: a document entering the window needs no scan; a
    /// window document moving beyond the edge does (documents beyond it may come in).
    @Test func aLimitWindowScansOnlyWhenItsEdgeCanMove() async throws {
        let server = Self.seeded(6)
        let query = try server.firestore().collection("items").order(by: "rank").limit(to: 3)
        let first = try await Self.poll(server, query, at: 0, Self.delta(), after: PollState())
        #expect(first.documents.map(\.id) == ["d0000", "d0001", "d0002"])
        server.write("e", ["group": "a", "rank": 1], requestTime: Self.time(100), commitTime: Self.time(120))
        let entered = try await Self.poll(server, query, at: 1000, Self.delta(), after: first.state)
        #expect(entered.statistics.keysScan == nil)
        #expect(entered.documents.map(\.id) == ["d0000", "d0001", "e"])
        server.write("d0000", ["group": "a", "rank": 99], requestTime: Self.time(1100), commitTime: Self.time(1120))
        let moved = try await Self.poll(server, query, at: 2000, Self.delta(), after: entered.state)
        #expect(moved.statistics.keysScan == .windowEdge)
        #expect(moved.documents.map(\.id) == ["d0001", "e", "d0002"])
    }

    /// A query with an offset cannot be polled by delta: every poll is a keys scan that says why.
    @Test func anOffsetQueryScansEveryPoll() async throws {
        let server = Self.seeded(4)
        let query = try server.firestore().collection("items").order(by: "rank").offset(1)
        let first = try await Self.poll(server, query, at: 0, Self.delta(), after: PollState())
        let second = try await Self.poll(server, query, at: 1000, Self.delta(), after: first.state)
        #expect(second.statistics.keysScan == .unsupportedQuery("the query has an offset"))
        #expect(second.documents.map(\.id) == ["d0001", "d0002", "d0003"])
    }

    /// An invalid tracking field is refused before anything is sent.
    @Test(arguments: ["", "a..b", "__name__"])
    func anInvalidTrackingFieldIsRefused(field: String) async throws {
        let server = Self.seeded(1)
        let query = try server.firestore().collection("items").query
        await #expect(throws: FirestoreError.self) {
            _ = try await PollFetcher(query: query).fetch(
                mode: .delta(field: field), previous: PollState())
        }
        #expect(server.requests == [])
    }
}
