import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

/// Issue 19, item 4: vectors get the server's indexes, and every snapshot's changes are replayed on the previous
/// list; when they do not rebuild the server's order, the changes are computed from that order and the feed says
/// so (`FeedEvent.orderingMismatch(reason:)`).
@Suite(.timeLimit(.minutes(2))) struct OrderingSafetyNetTests {
    typealias Change = QueryPollerTests.Change

    static let root = "projects/p/databases/(default)/documents/"

    static func time(_ seconds: Int) -> Timestamp {
        (try? Timestamp(seconds: 1_714_521_600 + Int64(seconds), nanos: 0)) ?? .minimum
    }

    static func document(_ path: String, _ fields: [String: FirestoreValue], version: Int = 0) -> Document {
        Document(name: root + path, fields: fields, createTime: time(0), updateTime: time(version))
    }

    static func changes(_ computed: [ComputedChange]) -> [Change] {
        computed.map {
            Change($0.type, String($0.document.name.split(separator: "/").last ?? ""), $0.oldIndex, $0.newIndex)
        }
    }

    static func ordering(_ field: String) -> DocumentOrdering {
        guard let path = try? FieldPath([field]) else { return DocumentOrdering(orders: []) }
        return DocumentOrdering(orders: [QueryOrder(field: path, descending: false)])
    }

    static let vector: FirestoreValue = .map([
        "__type__": .string("__vector__"), "value": .array([.double(1), .double(2), .double(3)]),
    ])

    /// The issue's documents in the emulator's order for `order by v`: `[1]`, a vector, `{}`, `{a: 1}`.
    static let vecs = [
        document("vecs/a", ["v": .array([.integer(1)])]),
        document("vecs/v", ["v": vector]),
        document("vecs/m", ["v": .map([:])]),
        document("vecs/m2", ["v": .map(["a": .integer(1)])]),
    ]

    /// Before vectors had a rank of their own the additions got newIndex 0, 1, 1, 3; now 0, 1, 2, 3, and the
    /// changes rebuild the server's list without a mismatch.
    @Test func vectorsGetTheServersIndexes() {
        let checked = DocumentChangeComputation.checkedChanges(from: [], to: Self.vecs, ordering: Self.ordering("v"))
        #expect(
            Self.changes(checked.changes) == [
                Change(.added, "a", nil, 0), Change(.added, "v", nil, 1), Change(.added, "m", nil, 2),
                Change(.added, "m2", nil, 3),
            ])
        #expect(checked.mismatch == nil)
        let moved = [
            Self.vecs[0], Self.vecs[2], Self.vecs[3], Self.document("vecs/v", ["v": .map(["b": .null])], version: 1),
        ]
        let modified = DocumentChangeComputation.checkedChanges(
            from: Self.vecs, to: moved, ordering: Self.ordering("v"))
        #expect(Self.changes(modified.changes) == [Change(.modified, "v", 1, 3)])
        #expect(modified.mismatch == nil)
    }

    /// An ordering that disagrees with the server's (here: the client orders by `x`, the server's list is by `v`,
    /// as vectors once disagreed): the replay fails, and the changes placed by the server's order rebuild it.
    @Test func anOrderingThatDisagreesGivesTheServersOrder() {
        let disagreeing = Self.ordering("x")
        let old = [
            Self.document("c/a", ["v": 1, "x": 4]), Self.document("c/b", ["v": 2, "x": 3]),
            Self.document("c/c", ["v": 3, "x": 2]),
        ]
        let first = DocumentChangeComputation.checkedChanges(from: [], to: old, ordering: disagreeing)
        #expect(
            Self.changes(first.changes) == [
                Change(.added, "a", nil, 0), Change(.added, "b", nil, 1), Change(.added, "c", nil, 2),
            ])
        #expect(
            first.mismatch
                == "the query's ordering puts c/b before c/a, the server's result has c/a first (positions 0 and 1)")
        #expect(
            DocumentChangeComputation.changes(from: [], to: old, ordering: disagreeing).map(\.newIndex) == [0, 0, 0])

        let new = [
            Self.document("c/d", ["v": 0, "x": 9], version: 1), Self.document("c/a", ["v": 1, "x": 4]),
            Self.document("c/b", ["v": 5, "x": 0], version: 1),
        ]
        let next = DocumentChangeComputation.checkedChanges(from: old, to: new, ordering: disagreeing)
        #expect(
            Self.changes(next.changes) == [
                Change(.removed, "c", 2, nil), Change(.added, "d", nil, 0), Change(.modified, "b", 2, 2),
            ])
        #expect(next.mismatch != nil)
        #expect(DocumentChangeReplay.rebuilds(next.changes, from: old, to: new))
    }

    @Test func theReplayRejectsChangesThatDoNotRebuild() {
        let old = [Self.document("c/a", [:]), Self.document("c/b", [:])]
        let new = [Self.document("c/b", [:]), Self.document("c/c", [:])]
        func change(_ type: DocumentChangeType, _ id: String, _ from: Int?, _ to: Int?) -> ComputedChange {
            ComputedChange(type: type, document: Self.document("c/" + id, [:]), oldIndex: from, newIndex: to)
        }
        #expect(
            DocumentChangeReplay.rebuilds(
                [change(.removed, "a", 0, nil), change(.added, "c", nil, 1)], from: old, to: new))
        #expect(
            !DocumentChangeReplay.rebuilds(
                [change(.removed, "a", 1, nil), change(.added, "c", nil, 1)], from: old, to: new))
        #expect(
            !DocumentChangeReplay.rebuilds(
                [change(.removed, "a", 0, nil), change(.added, "c", nil, 0)], from: old, to: new))
        #expect(
            !DocumentChangeReplay.rebuilds(
                [change(.removed, "a", 0, nil), change(.added, "c", nil, 5)], from: old, to: new))
        #expect(!DocumentChangeReplay.rebuilds([change(.modified, "a", 0, 1)], from: old, to: new))
        #expect(!DocumentChangeReplay.rebuilds([], from: old, to: new))
        #expect(DocumentChangeReplay.rebuilds([], from: old, to: old))
    }

    /// The poller publishes the server's order when the ordering disagrees, and reports it once per snapshot.
    @Test func thePollerReportsAMismatchAndPublishesTheServersOrder() async throws {
        // The query orders by name; this "server" answers b before a.
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body: RunQueryBody.make(
                    readTime: "2024-05-01T00:00:01Z",
                    [("b", "2024-05-01T00:00:00Z", "B"), ("a", "2024-05-01T00:00:00Z", "A")])),
            .response(status: 403, body: #"{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}"#),
        ])
        let events = SlowConsumerTests.Events()
        let db = try Firestore.offline(transport: transport)
        var feed = PollerPool(clock: ImmediateClock()).snapshots(
            of: db.collection("fruits").order(by: "name"), mode: .full,
            policy: QueryPollerTests.policy(.seconds(1))
        ) { events.note($0) }
        .makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(QueryPollerTests.changes(first) == [Change(.added, "b", nil, 0), Change(.added, "a", nil, 1)])
        #expect(first.documents.map(\.documentID) == ["b", "a"])
        await #expect(throws: FirestoreError.self) { _ = try await feed.next() }
        #expect(
            events.list
                == [
                    .orderingMismatch(
                        reason:
                            "the query's ordering puts fruits/a before fruits/b, the server's result has fruits/b first "
                            + "(positions 0 and 1)")
                ])
    }

    /// 300 seeded random writes (create, delete, update with or without a move) on a "server" that orders by a
    /// field the query's ordering does not know: every snapshot's published changes rebuild the server's list, the
    /// types are exactly the rules' (added: new names, removed: gone names, modified: a moved updateTime), and the
    /// same run on an ordering that agrees never reports a mismatch and publishes the plain computation.
    @Test func aRandomRunOf300WritesAlwaysRebuildsTheServersOrder() {
        var random = SplitMix64(state: 19)
        var rows: [String: (rank: Int, name: Int, version: Int)] = [:]
        var nextID = 0
        var previous: [Document] = []
        var mismatches = 0
        func serverList() -> [Document] {
            rows.sorted { ($0.value.rank, $0.key) < ($1.value.rank, $1.key) }.map { id, row in
                Self.document(
                    "c/" + id, ["r": .integer(Int64(row.rank)), "n": .integer(Int64(row.name))], version: row.version)
            }
        }
        for write in 0..<300 {
            let ids = rows.keys.sorted()
            switch random.below(ids.count < 5 ? 1 : 4) {
            case 0:
                rows[String(format: "d%03d", nextID)] = (random.below(50), random.below(50), write)
                nextID += 1
            case 1:
                rows[ids[random.below(ids.count)]] = nil
            case 2:
                let id = ids[random.below(ids.count)]
                rows[id]?.version = write
                rows[id]?.name = random.below(50)
            default:
                let id = ids[random.below(ids.count)]
                rows[id] = (random.below(50), random.below(50), write)
            }
            let current = serverList()
            let checked = DocumentChangeComputation.checkedChanges(
                from: previous, to: current, ordering: Self.ordering("n"))
            if checked.mismatch != nil { mismatches += 1 }
            #expect(Self.replay(checked.changes, on: previous) == current.map(\.name), "write \(write)")
            let oldNames = Set(previous.map(\.name))
            let newNames = Set(current.map(\.name))
            let versions = Dictionary(uniqueKeysWithValues: previous.map { ($0.name, $0.updateTime) })
            let moved: Set<String> = Set(
                current.filter { document in
                    guard let old = versions[document.name] else { return false }
                    return old != document.updateTime
                }.map(\.name))
            func names(_ type: DocumentChangeType) -> Set<String> {
                Set(checked.changes.filter { $0.type == type }.map(\.document.name))
            }
            #expect(names(.added) == newNames.subtracting(oldNames))
            #expect(names(.removed) == oldNames.subtracting(newNames))
            #expect(names(.modified) == moved)

            let agreeing = DocumentChangeComputation.checkedChanges(
                from: previous, to: current, ordering: Self.ordering("r"))
            #expect(agreeing.mismatch == nil)
            #expect(
                agreeing.changes
                    == DocumentChangeComputation.changes(from: previous, to: current, ordering: Self.ordering("r")))
            #expect(Self.replay(agreeing.changes, on: previous) == current.map(\.name))
            previous = current
        }
        #expect(mismatches > 100, "\(mismatches)")
    }

    /// A list UI's replay, written out on its own: names, one change at a time.
    static func replay(_ changes: [ComputedChange], on old: [Document]) -> [String]? {
        var list = old.map(\.name)
        for change in changes {
            switch change.type {
            case .removed:
                guard let index = change.oldIndex, list.indices.contains(index), list[index] == change.document.name
                else { return nil }
                list.remove(at: index)
            case .added:
                guard let index = change.newIndex, index >= 0, index <= list.count else { return nil }
                list.insert(change.document.name, at: index)
            case .modified:
                guard let from = change.oldIndex, let to = change.newIndex, list.indices.contains(from),
                    list[from] == change.document.name
                else { return nil }
                list.remove(at: from)
                guard to >= 0, to <= list.count else { return nil }
                list.insert(change.document.name, at: to)
            }
        }
        return list
    }
}
