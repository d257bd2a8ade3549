import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

/// Issue 18, differential: for seeded random write sequences on an in-memory versioned server
/// (``VersionedFirestore``) — adds, modifies, documents leaving and entering the result, deletes, and writes whose
/// field time precedes the previous poll's `readTime` but whose commit follows it — a delta feed and a keys feed of
/// the same query, polling at the same server times, publish the same snapshots, and each snapshot is the
/// query's result at that time (so no change is spurious or missing). Plain, ordered, `limit`, `limit(toLast:)`,
/// value-cursor and document-cursor queries.
@Suite(.timeLimit(.minutes(5)), .serialized) struct DeltaDifferentialTests {
    /// A snapshot reduced to what both feeds must agree on.
    struct Published: Equatable, CustomStringConvertible {
        var documents: [String]
        var changes: [String]
        init(_ snapshot: QuerySnapshot) {
            documents = snapshot.documents.map { "\($0.documentID)@\($0.updateTime?.rfc3339 ?? "-")" }
            changes = snapshot.documentChanges.map { change in
                "\(change.type) \(change.document.documentID) \(change.oldIndex ?? -1)->\(change.newIndex ?? -1)"
            }
        }
        init(failure: any Error) {
            documents = ["failed: \(failure)"]
            changes = []
        }
        var description: String { "\(documents) \(changes)" }
    }

    /// Collects a feed's snapshots.
    final class Collector: Sendable {
        let published = Mutex<[Published]>([])
        let events = ErrorLog()
        var count: Int { published.withLock { $0.count } }
        var last: Published? { published.withLock { $0.last } }
    }

    static let base: Int64 = 1_714_521_600  // 2024-05-01T00:00:00Z

    /// `milliseconds` after the base time.
    static func time(_ milliseconds: Int64) -> Timestamp {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let rest = milliseconds - seconds * 1000
        return (try? Timestamp(seconds: base + seconds, nanos: Int32(rest * 1_000_000))) ?? .minimum
    }

    static let queries: [(name: String, make: @Sendable (Firestore) -> Query)] = [
        ("plain", { $0.collection("items").whereField("group", isEqualTo: "a") }),
        ("ordered", { $0.collection("items").whereField("group", isEqualTo: "a").order(by: "rank") }),
        ("limit", { $0.collection("items").whereField("group", isEqualTo: "a").order(by: "rank").limit(to: 4) }),
        (
            "limitToLast",
            { $0.collection("items").whereField("group", isEqualTo: "a").order(by: "rank").limit(toLast: 4) }
        ),
        ("valueCursor", { $0.collection("items").order(by: "rank").start(at: [10]).end(before: [40]) }),
        (
            "documentCursor",
            { db in
                let cursor = Document(
                    name: VersionedFirestore.root + "/items/i05", fields: ["rank": .integer(20), "group": "a"])
                return db.collection("items").whereField("group", isEqualTo: "a").order(by: "rank", descending: true)
                    .start(afterDocument: DocumentSnapshot(firestore: db, document: cursor)).limit(to: 5)
            }
        ),
    ]

    @Test(arguments: [0, 1, 2, 3, 4, 5], [UInt64(18), 1_000_003])
    func deltaSnapshotsEqualKeysSnapshots(query index: Int, seed: UInt64) async throws {
        let (name, make) = Self.queries[index]
        let outcome = try await Self.run(make, seed: seed, steps: 40)
        #expect(outcome.delta == outcome.keys, "\(name) seed \(seed)")
        #expect(outcome.mismatches == [], "\(name) seed \(seed)")
        #expect(outcome.drifts.allSatisfy { $0 == 0 }, "\(name) seed \(seed): drift \(outcome.drifts)")
        #expect(outcome.drifts.count >= 1, "\(name) seed \(seed): a reconciling scan ran")
        #expect(outcome.deltaPolls > outcome.scans, "\(name) seed \(seed): most polls need no keys scan")
    }

    /// Waits until `condition` holds, checking every 2 ms for up to `seconds` (generous: the whole suite runs at
    /// once on two cores).
    static func within(seconds: Int, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition()
    }

    struct Outcome {
        var keys: [Published] = []
        var delta: [Published] = []
        /// Steps where a feed's last snapshot differed from the query's result at that time.
        var mismatches: [String] = []
        var drifts: [Int] = []
        var deltaPolls = 0
        var scans = 0
    }

    /// Runs both feeds of `make`'s query over `steps` seconds of random writes; polls once a second of server time.
    static func run(_ make: @Sendable (Firestore) -> Query, seed: UInt64, steps: Int) async throws -> Outcome {
        var random = SplitMix64(seed: seed)
        let server = VersionedFirestore(now: time(0))
        var nextID = 0
        func newID() -> String {
            nextID += 1
            return String(format: "i%02d", nextID)
        }
        for _ in 0..<12 {
            let request = time(-900 + Int64(random.below(800)))
            server.write(
                newID(), ["group": random.below(3) == 0 ? "b" : "a", "rank": .integer(Int64(random.below(50)))],
                requestTime: request, commitTime: request.subtracting(.milliseconds(-1 - Int64(random.below(40)))))
        }
        let db = try server.firestore()
        let query = make(db)
        let clock = ManualClock()
        let pool = PollerPool(clock: clock)
        let policy = PollingPolicy(interval: .seconds(1), jitter: 0)
        let keys = Collector()
        let delta = Collector()
        var tasks: [Task<Void, Never>] = []
        for (collector, mode) in [
            (keys, PollMode.keys),
            (delta, .delta(field: "updatedAt", margin: .milliseconds(500), reconcileInterval: .seconds(30))),
        ] {
            let stream = pool.snapshots(of: query, mode: mode, policy: policy) { collector.events.append($0) }
            tasks.append(
                Task {
                    do {
                        for try await snapshot in stream {
                            collector.published.withLock { $0.append(Published(snapshot)) }
                        }
                    } catch {
                        collector.published.withLock { $0.append(Published(failure: error)) }
                    }
                })
        }
        defer { for task in tasks { task.cancel() } }
        var outcome = Outcome()
        var truth: [String]?
        var expected = 0
        for step in 0...steps {
            if step > 0 {
                writeRandomly(server, &random, step: Int64(step), newID: newID)
                server.now = time(Int64(step) * 1000)
                clock.advance(by: .seconds(1))
            }
            let polled = await Self.within(seconds: 60) {
                keys.events.polls.count == step + 1 && delta.events.polls.count == step + 1
            }
            guard polled else {
                outcome.mismatches.append(
                    "step \(step): the feeds did not poll: keys \(keys.events.polls.count) polls, "
                        + "events \(keys.events.all), \(keys.count) snapshots; delta \(delta.events.polls.count) polls, "
                        + "events \(delta.events.all), \(delta.count) snapshots; \(clock.sleeperCount) asleep")
                break
            }
            let now = try await query.getDocuments().documents.map {
                "\($0.documentID)@\($0.updateTime?.rfc3339 ?? "-")"
            }
            if now != truth {
                expected += 1
                truth = now
            }
            let caughtUp = await Self.within(seconds: 60) { keys.count >= expected && delta.count >= expected }
            if !caughtUp || keys.count != expected || delta.count != expected {
                outcome.mismatches.append(
                    "step \(step): \(keys.count) keys and \(delta.count) delta snapshots, expected \(expected)")
            }
            if keys.last?.documents != now {
                outcome.mismatches.append("step \(step): keys \(keys.last?.description ?? "-") != \(now)")
            }
            if delta.last?.documents != now {
                outcome.mismatches.append("step \(step): delta \(delta.last?.description ?? "-") != \(now)")
            }
            if !outcome.mismatches.isEmpty { break }
            // Both pollers asleep again before the next advance, or the advance would not wake them.
            guard await Self.within(seconds: 60, { clock.sleeperCount == 2 }) else {
                outcome.mismatches.append("step \(step): the pollers did not go back to sleep")
                break
            }
        }
        outcome.keys = keys.published.withLock { $0 }
        outcome.delta = delta.published.withLock { $0 }
        let polls = delta.events.polls
        outcome.drifts = polls.compactMap(\.drift)
        outcome.deltaPolls = polls.count
        outcome.scans = polls.filter { $0.keysScan != nil }.count
        return outcome
    }

    /// 0 to 3 random writes during second `step` (server time `step - 1` to `step` seconds): adds, rank changes,
    /// group changes (the document leaves or enters), deletes, and slow commits whose request time is before the
    /// poll at `step` seconds but whose commit comes after it.
    static func writeRandomly(
        _ server: VersionedFirestore, _ random: inout SplitMix64, step: Int64, newID: () -> String
    ) {
        let existing = server.documents(at: time(step * 1000 + 1000)).map(\.id).sorted()
        for _ in 0..<random.below(4) {
            var request = time((step - 1) * 1000 + Int64(random.below(900)))
            var commit = request.subtracting(.milliseconds(-1 - Int64(random.below(60))))
            if random.below(5) == 0 {
                // Slow: requested just before the poll at `step` seconds, committed up to 400 ms after it.
                request = time(step * 1000 - 1 - Int64(random.below(100)))
                commit = time(step * 1000 + 1 + Int64(random.below(300)))
            }
            let target = existing.isEmpty ? nil : existing[random.below(existing.count)]
            switch (random.below(6), target) {
            case (0, _), (_, nil):
                server.write(
                    newID(), ["group": "a", "rank": .integer(Int64(random.below(50)))], requestTime: request,
                    commitTime: commit)
            case (1, let id?), (2, let id?):
                server.write(
                    id, ["group": "a", "rank": .integer(Int64(random.below(50)))], requestTime: request,
                    commitTime: commit)
            case (3, let id?):
                server.write(
                    id, ["group": random.below(2) == 0 ? "b" : "a", "rank": .integer(Int64(random.below(50)))],
                    requestTime: request, commitTime: commit)
            case (_, let id?):
                server.delete(id, commitTime: commit)
            }
        }
    }
}
