import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// The backfill of `mirror(into:)` (issue 36) as logic, against a scripted result and a sink double: pages by name
/// at one read time, the cursor in each page's transaction, a restart after the cursor at the same time, a read time
/// too old started over, and each page's range of names reconciled.
@Suite(.timeLimit(.minutes(1))) struct MirrorBackfillTests {
    typealias F = MirrorFixture

    /// A sink in memory: the documents by name, the resume point of shard 0, every batch applied; `failOn` makes the
    /// apply of that batch (1-based, counting every attempt) throw, changing nothing.
    final class MemorySink: FeedSink {
        struct State {
            var documents: [String: Document] = [:]
            var resume: FeedSinkResumePoint?
            var batches: [FeedSinkBatch] = []
            var attempts = 0
        }
        let state: Mutex<State>
        let failOn: Int?

        init(documents: [Document] = [], resume: FeedSinkResumePoint? = nil, failOn: Int? = nil) {
            var state = State()
            for document in documents { state.documents[document.name] = document }
            state.resume = resume
            self.state = Mutex(state)
            self.failOn = failOn
        }

        func resumePoint(shard: Int) async throws -> FeedSinkResumePoint? { state.withLock { $0.resume } }

        func documents() async throws -> [Document] {
            state.withLock { $0.documents.values.sorted { $0.name < $1.name } }
        }

        func apply(_ batch: FeedSinkBatch) async throws {
            let failOn = self.failOn
            try state.withLock { state throws(FirestoreError) in
                state.attempts += 1
                if state.attempts == failOn {
                    throw FirestoreError(code: .unavailable, message: "the sink double fails batch \(state.attempts)")
                }
                for change in batch.changes {
                    switch change {
                    case .put(let document): state.documents[document.name] = document
                    case .remove(let name): state.documents[name] = nil
                    }
                }
                state.resume = batch.resumePoint
                state.batches.append(batch)
            }
        }

        var ids: [String] { state.withLock { $0.documents.keys.map { String($0.dropFirst(F.prefix.count)) }.sorted() } }
        var batches: [FeedSinkBatch] { state.withLock { $0.batches } }
    }

    /// A result of documents `d0000`... in name order, read by pages as the server would; every call recorded as
    /// `after@readTime` (`-` for none; read times as seconds after the fixture's epoch). A page asked for at a read
    /// time listed in `tooOld` fails as the emulator refuses one.
    final class ScriptedResult: Sendable {
        let documents: Mutex<[Document]>
        let now: Mutex<Int64>
        let tooOld: Mutex<Set<Int64>>
        let calls = Mutex<[String]>([])

        init(count: Int, now: Int64 = 100) {
            documents = Mutex((0..<count).map { F.document(Self.id($0), updated: 5) })
            self.now = Mutex(now)
            tooOld = Mutex([])
        }

        static func id(_ index: Int) -> String { "d" + String(format: "%04d", index) }

        static func seconds(_ time: Timestamp) -> Int64 { time.seconds - F.time(0).seconds }

        var fetch: MirrorBackfill.Fetch {
            { after, readTime, limit in
                let cursor = after.map { String($0.dropFirst(F.prefix.count)) } ?? "-"
                self.calls.withLock { $0.append("\(cursor)@\(readTime.map { "\(Self.seconds($0))" } ?? "-")") }
                if let readTime, self.tooOld.withLock({ $0.contains(Self.seconds(readTime)) }) {
                    throw FirestoreError(code: .failedPrecondition, message: "The requested 'read_time' is too old.")
                }
                let time = readTime ?? F.time(self.now.withLock { $0 })
                let page = self.documents.withLock { documents in
                    Array(documents.filter { after == nil || $0.name > after ?? "" }.prefix(limit))
                }
                return MirrorBackfill.Page(documents: page, readTime: time)
            }
        }
    }

    final class Events: Sendable {
        let lines = Mutex<[String]>([])
        func note(_ event: FeedEvent) {
            switch event {
            case .backfillPage(let loaded, let readTime, let complete, let statistics):
                lines.withLock {
                    $0.append(
                        "page \(loaded) at \(ScriptedResult.seconds(readTime))\(complete ? " complete" : ""), "
                            + "\(statistics.billedReads) billed")
                }
            case .backfillRestarted(let reason): lines.withLock { $0.append("restarted: \(reason)") }
            default: break
            }
        }
    }

    static let identity = "projects/p/databases/(default)/documents {\"from\":[{\"collectionId\":\"items\"}]}"

    static func load(
        _ sink: MemorySink, _ result: ScriptedResult, pageSize: Int = 1000, events: Events? = nil
    ) async throws -> Timestamp? {
        let stored = try await sink.resumePoint(shard: 0)
        var onEvent: (@Sendable (FeedEvent) -> Void)?
        if let events { onEvent = { events.note($0) } }
        return try await MirrorBackfill.load(
            into: sink, from: stored, query: identity, generation: 0, pageSize: pageSize, fetch: result.fetch,
            onEvent: onEvent)
    }

    @Test func twoThousandFiveHundredDocumentsLoadInThreePagesAtOneReadTime() async throws {
        let sink = MemorySink()
        let result = ScriptedResult(count: 2500)
        let events = Events()
        let loadedAt = try await Self.load(sink, result, events: events)
        #expect(loadedAt == F.time(100))
        #expect(result.calls.withLock { $0 } == ["-@-", "d0999@100", "d1999@100"])
        #expect(sink.batches.map(\.changes.count) == [1000, 1000, 500])
        #expect(sink.batches.map(\.loadCursor) == [F.prefix + "d0999", F.prefix + "d1999", nil])
        #expect(sink.batches.allSatisfy { $0.readTime == F.time(100) && $0.resumeToken == nil })
        #expect(sink.batches.allSatisfy { $0.query == Self.identity })
        #expect(sink.state.withLock { $0.documents.count } == 2500)
        #expect(
            events.lines.withLock { $0 } == [
                "page 1000 at 100, 1000 billed", "page 2000 at 100, 1000 billed",
                "page 2500 at 100 complete, 500 billed",
            ])
    }

    /// A result of exactly two pages ends with an empty page: it stores no cursor, and bills the one read an empty
    /// query costs.
    @Test func aResultOfWholePagesEndsWithAnEmptyPage() async throws {
        let sink = MemorySink()
        let result = ScriptedResult(count: 4)
        let events = Events()
        _ = try await Self.load(sink, result, pageSize: 2, events: events)
        #expect(result.calls.withLock { $0 } == ["-@-", "d0001@100", "d0003@100"])
        #expect(sink.batches.map(\.loadCursor) == [F.prefix + "d0001", F.prefix + "d0003", nil])
        #expect(events.lines.withLock { $0.last } == "page 4 at 100 complete, 1 billed")
    }

    @Test func anEmptyResultStoresItsReadTimeWithNoCursor() async throws {
        let sink = MemorySink()
        let loadedAt = try await Self.load(sink, ScriptedResult(count: 0))
        #expect(loadedAt == F.time(100))
        #expect(sink.batches.count == 1)
        #expect(
            sink.state.withLock { $0.resume }
                == FeedSinkResumePoint(
                    resumeToken: nil, readTime: F.time(100), generation: 0, query: Self.identity, loadCursor: nil))
    }

    /// The sink fails on the second page: the first page stays with its cursor, and the next load asks only for what
    /// follows it, at the first load's read time (though the server's clock moved on).
    @Test func aLoadStoppedAfterAPageGoesOnAfterItsCursorAtTheSameReadTime() async throws {
        let result = ScriptedResult(count: 2500)
        let failing = MemorySink(failOn: 2)
        await #expect(throws: FirestoreError.self) { _ = try await Self.load(failing, result) }
        let stored = try #require(failing.state.withLock { $0.resume })
        #expect(stored.loadCursor == F.prefix + "d0999")
        #expect(stored.readTime == F.time(100))
        #expect(failing.state.withLock { $0.documents.count } == 1000)

        result.now.withLock { $0 = 200 }
        result.calls.withLock { $0 = [] }
        let resumed = MemorySink(
            documents: failing.state.withLock { Array($0.documents.values) }, resume: stored)
        let loadedAt = try await Self.load(resumed, result)
        #expect(loadedAt == F.time(100))
        #expect(result.calls.withLock { $0 } == ["d0999@100", "d1999@100"])
        #expect(resumed.batches.map(\.changes.count) == [1000, 500])
        #expect(resumed.state.withLock { $0.documents.count } == 2500)
    }

    /// The server refuses the stored read time as too old: the load starts over from the first name at the read time
    /// of its new first page, and removes what the sink held that is no longer in the result.
    @Test func aReadTimeTooOldStartsTheLoadOverAndRemovesWhatLeft() async throws {
        let result = ScriptedResult(count: 5, now: 300)
        result.tooOld.withLock { $0 = [100] }
        // The half load of an earlier pass at second 100: d0000, d0001, and x (deleted since).
        let held = [F.document("d0000", updated: 5), F.document("d0001", updated: 5), F.document("x", updated: 5)]
        let sink = MemorySink(
            documents: held,
            resume: FeedSinkResumePoint(
                resumeToken: nil, readTime: F.time(100), generation: 0, query: Self.identity,
                loadCursor: F.prefix + "d0001"))
        let events = Events()
        let loadedAt = try await Self.load(sink, result, pageSize: 2, events: events)
        #expect(loadedAt == F.time(300))
        #expect(result.calls.withLock { $0 } == ["d0001@100", "-@-", "d0001@300", "d0003@300"])
        #expect(sink.ids == ["d0000", "d0001", "d0002", "d0003", "d0004"])
        #expect(sink.batches.last?.changes == [F.put("d0004", updated: 5), F.remove("x")])
        #expect(
            events.lines.withLock { $0 } == [
                "restarted: failed-precondition: The requested 'read_time' is too old.", "page 2 at 300, 2 billed",
                "page 4 at 300, 2 billed", "page 5 at 300 complete, 1 billed",
            ])
    }

    /// A page removes the names it does not hold in its range: after the previous cursor, up to its last name (to the
    /// end for the last page); names before the range or after it are left to their own pages.
    @Test func aPageRemovesOnlyTheMissingNamesOfItsRange() {
        let held = ["a", "b", "c", "d", "e", "f"].map { F.prefix + $0 }
        let page = ["c", "e"].map { F.document($0, updated: 1) }
        #expect(
            MirrorBackfill.departed(from: held, after: F.prefix + "b", upTo: F.prefix + "e", page: page) == [
                F.prefix + "d"
            ])
        #expect(
            MirrorBackfill.departed(from: held, after: F.prefix + "b", upTo: nil, page: page) == [
                F.prefix + "d", F.prefix + "f",
            ])
        #expect(
            MirrorBackfill.departed(from: held, after: nil, upTo: F.prefix + "c", page: page) == [
                F.prefix + "a", F.prefix + "b",
            ])
        #expect(MirrorBackfill.departed(from: [], after: nil, upTo: nil, page: page) == [])
    }

    /// Only a query the server orders by name alone is paged; an order by a field, an inequality filter (its field is
    /// ordered first), a limit, an offset or a cursor is not.
    @Test func onlyAQueryOrderedByNameAloneIsPaged() throws {
        let items = try Firestore.offline().collection("items")
        #expect(MirrorBackfill.canPage(items.query))
        #expect(MirrorBackfill.canPage(items.whereField("kind", isEqualTo: "a")))
        #expect(MirrorBackfill.canPage(items.whereField("tags", arrayContains: "a")))
        #expect(MirrorBackfill.canPage(items.order(by: FieldPath.documentID)))
        #expect(!MirrorBackfill.canPage(items.order(by: FieldPath.documentID, descending: true)))
        #expect(!MirrorBackfill.canPage(items.order(by: "n")))
        #expect(!MirrorBackfill.canPage(items.whereField("n", isGreaterThan: 3)))
        #expect(!MirrorBackfill.canPage(items.limit(to: 10)))
        #expect(!MirrorBackfill.canPage(items.offset(2)))
        #expect(!MirrorBackfill.canPage(items.order(by: FieldPath.documentID).start(after: ["x"])))
    }

    /// The read-time errors the server may answer with are told from others by their message.
    @Test func aReadTimeTooOldIsToldByItsCodeAndMessage() {
        #expect(
            MirrorBackfill.isReadTimeTooOld(
                FirestoreError(code: .failedPrecondition, message: "The requested 'read_time' is too old.")))
        #expect(
            MirrorBackfill.isReadTimeTooOld(
                FirestoreError(code: .invalidArgument, message: "read_time is older than the version retention")))
        #expect(!MirrorBackfill.isReadTimeTooOld(FirestoreError(code: .failedPrecondition, message: "needs an index")))
        #expect(!MirrorBackfill.isReadTimeTooOld(FirestoreError(code: .unavailable, message: "read_time")))
    }
}
