import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// Feed groups on the emulator, members in one process on clients of their own: a lone member delivers every
/// shard; a second one gets its fair share after a rebalance; a graceful leave hands the shards over from their
/// checkpoints (only what changed since is delivered again); the shards' lists together equal the query.
@Suite(.timeLimit(.minutes(4))) struct FeedGroupLiveTests {
    /// The lease length. Nothing here relies on a lease expiring: shards change hands by rebalancing and leaving, so
    /// the generations and the deliveries are exact only while no renewal is late by a lease length (a member
    /// starved that long has its shards taken over at a new generation). 30 s makes that a hang, not a loaded
    /// machine. What does wait for a lease length is a member's record: a member that left stays counted live until
    /// the others have seen its heartbeat unchanged for a lease length, and until then they take only their share
    /// of two.
    static let lease = 30.0

    static func options(_ member: String) -> FeedGroupOptions {
        FeedGroupOptions(
            member: member, shards: 3, leaseDuration: .seconds(lease), renewInterval: .seconds(1),
            policy: PollingPolicy(interval: .milliseconds(200)))
    }

    /// What one member delivered: each shard's latest list, every (shard, generation) in order, and events.
    final class Record: Sendable {
        struct State {
            var lists: [Int: [String]] = [:]
            var generations: [Int: [Int64]] = [:]
            var changes: [String] = []
            var resumed: [Int: Timestamp] = [:]
            var events: [String] = []
        }
        let state = Mutex(State())
    }

    /// A member consuming its group's stream into a ``Record``.
    final class Consumer: Sendable {
        let record = Record()
        let group: FeedGroup
        let task: Task<Void, any Error>

        init(_ query: Query, member: String) {
            let record = self.record
            let group = FeedGroup(query, name: "orders", options: FeedGroupLiveTests.options(member)) { event in
                record.state.withLock { $0.events.append("\(event)") }
            }
            self.group = group
            task = Task {
                for try await shard in group.snapshots {
                    // Acknowledged before it is recorded: a test that saw a change knows its checkpoint is due.
                    await shard.acknowledge()
                    record.state.withLock { state in
                        state.lists[shard.shard] = shard.snapshot.documents.map(\.documentID)
                        if state.generations[shard.shard]?.last != shard.generation {
                            state.generations[shard.shard, default: []].append(shard.generation)
                        }
                        if let from = shard.resumedFrom { state.resumed[shard.shard] = from }
                        for change in shard.snapshot.documentChanges {
                            state.changes.append("\(shard.shard) \(change.type) \(change.document.documentID)")
                        }
                    }
                }
            }
        }

        var held: [Int] { record.state.withLock { Array($0.lists.keys).sorted() } }
        func read<T>(_ body: (Record.State) -> T) -> T { record.state.withLock { body($0) } }
    }

    static func union(_ consumers: [Consumer], shards: [[Int]]) -> [String] {
        var all: [String] = []
        for (consumer, held) in zip(consumers, shards) {
            consumer.read { state in for shard in held { all += state.lists[shard] ?? [] } }
        }
        return all.sorted()
    }

    @Test func membersShareTheShardsAndHandThemOverFromTheirCheckpoints() async throws {
        let writer = try LiveFirestore.make("feed-group")
        let orders = writer.collection("orders")
        let ids = (0..<30).map { String(format: "o%02d", $0) }
        let batch = writer.batch()
        for id in ids { try batch.setData(["n": .value(.integer(1))], forDocument: orders.document(id)) }
        _ = try await batch.commit()
        let clientA = try Firestore.emulator(
            host: EmulatorEnvironment.requireHost(), projectID: writer.database.projectID)
        let a = Consumer(clientA.collection("orders").query, member: "a")
        let reached1 = await eventuallyAsync(seconds: 60) { a.held == [0, 1, 2] }
        #expect(reached1)
        #expect(Self.union([a], shards: [[0, 1, 2]]) == ids)
        let groupDocument = try await writer.collection("feedGroups").document("orders").getDocument()
        #expect(groupDocument.get("shards") == .integer(3))
        guard case .array(let points)? = groupDocument.get("splitPoints") else {
            Issue.record("no split points")
            return
        }
        // 30 documents in 3 shards, split by a keys scan: at o10 and o20.
        let names = points.compactMap { point -> String? in
            guard case .reference(let name) = point else { return nil }
            return String(name.split(separator: "/").suffix(2).joined(separator: "/"))
        }
        #expect(names == ["orders/o10", "orders/o20"])

        let clientB = try Firestore.emulator(
            host: EmulatorEnvironment.requireHost(), projectID: writer.database.projectID)
        let b = Consumer(clientB.collection("orders").query, member: "b")
        // a's share drops to ceil(3 / 2) = 2: it releases shard 2, which b takes.
        let reached2 = await eventuallyAsync(seconds: 60) {
            let heldByA = await a.group.heldShards()
            return b.held == [2] && heldByA == [0, 1]
        }
        #expect(reached2)
        #expect(b.read { $0.resumed[2] } != nil)

        try await orders.document("o05").setData(["n": .value(.integer(2))])
        try await orders.document("o25").setData(["n": .value(.integer(2))])
        let reached3 = await eventuallyAsync(seconds: 60) { a.read { $0.changes.contains("0 modified o05") } }
        #expect(reached3)
        let reached4 = await eventuallyAsync(seconds: 60) { b.read { $0.changes.contains("2 modified o25") } }
        #expect(reached4)
        #expect(!b.read { $0.changes.contains { $0.hasSuffix("o05") } })
        // b took shard 2 from a's checkpoint: its first snapshot listed nothing (nothing had changed since), so o25
        // is all it delivered of it, not o20...o29 added.
        #expect(b.read { state in state.changes.filter { $0.hasPrefix("2 ") } } == ["2 modified o25"])

        // a leaves gracefully, writing its checkpoints: b takes shards 0 and 1 and resumes them from there (shard 0 at
        // its next renewal, shard 1 once a is seen gone, a lease length later: hence the wait of a lease and a minute).
        await a.group.leave()
        try await orders.document("o15").setData(["n": .value(.integer(3))])
        let reached5 = await eventuallyAsync(seconds: Self.lease + 60) { (await b.group.heldShards()) == [0, 1, 2] }
        #expect(reached5)
        let reached6 = await eventuallyAsync(seconds: 60) { b.read { $0.changes.contains("1 modified o15") } }
        #expect(reached6)
        if !reached6 {
            // What each member saw, for the closing note of a failure: leases, checkpoints, resumes.
            print("feed group handover: a's events:\n" + a.read { $0.events.joined(separator: "\n") })
            print("feed group handover: b's events:\n" + b.read { $0.events.joined(separator: "\n") })
        }
        let direct = try await orders.getDocuments().documents.map(\.documentID)
        let reached7 = await eventuallyAsync(seconds: 60) { Self.union([b], shards: [[0, 1, 2]]) == direct }
        #expect(reached7)
        // b's first snapshot of shards 0 and 1 listed only what changed since a's checkpoint: o15, not o00...o19.
        #expect(b.read { state in state.changes.filter { $0.hasPrefix("0 ") } } == [])
        #expect(b.read { state in state.changes.filter { $0.hasPrefix("1 ") } } == ["1 modified o15"])
        // Every lease was taken twice: by a at generation 1 (shard 2 released to b), by b at generation 2.
        #expect(b.read { $0.generations } == [0: [2], 1: [2], 2: [2]])
        await b.group.leave()
        a.task.cancel()
        b.task.cancel()
    }

    @Test func aListenerGetsEveryShardAndRemovingItReleasesTheLeases() async throws {
        let db = try LiveFirestore.make("feed-group-listener")
        for id in ["a", "b", "c", "d"] { try await db.collection("orders").document(id).setData(["n": 1]) }
        let seen = Mutex<[String]>([])
        let registration = FeedGroup.addSnapshotListener(
            db.collection("orders"), name: "listener", options: Self.options("solo")
        ) { shard, _ in
            guard let shard else { return }
            seen.withLock { seen in
                seen += shard.snapshot.documentChanges.map { "\(shard.shard) \($0.type) \($0.document.documentID)" }
            }
        }
        let all = await eventually(seconds: 60) { seen.withLock { $0.count } >= 4 }
        #expect(all)
        // 4 documents in 3 shards: split at b and c.
        #expect(seen.withLock { $0.sorted() } == ["0 added a", "1 added b", "2 added c", "2 added d"])
        registration.remove()
        let shards = db.collection("feedGroups").document("listener").collection("shards")
        let released = await eventuallyAsync(seconds: 60) {
            let owners = (try? await shards.getDocuments().documents.map { $0.get("owner") }) ?? []
            return owners == [.string(""), .string(""), .string("")]
        }
        #expect(released)
    }

    /// What the stream of a lone member of `name` on `query` ends with, within 20 s.
    static func ending(_ query: Query, name: String, shards: Int = 3) async -> String {
        var options = Self.options("x")
        options.shards = shards
        do {
            for try await _ in FeedGroup(query, name: name, options: options).snapshots {}
            return "ended"
        } catch let error as FirestoreError {
            return "\(error.code): \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aGroupOfAnotherQueryOrShardCountOrADamagedLeaseEndsTheStreamWithAClearError() async throws {
        let db = try LiveFirestore.make("feed-group-errors")
        try await db.collection("orders").document("a").setData(["open": true])
        let orders = db.collection("orders").query
        let group = db.collection("feedGroups").document("g")
        try await group.setData([
            "query": "another", "shards": 3, "splitPoints": .value(.array([])),
        ])
        let ending1 = await Self.ending(orders, name: "g")
        #expect(
            ending1
                == "failed-precondition: feed group feedGroups/g watches another query (another), not "
                + (try QueryIdentity(orders).description)
                + ": choose another group name, or delete the group's documents to start it again")
        try await group.setData([
            "query": .value(.string(try QueryIdentity(orders).description)), "shards": 3,
            "splitPoints": .value(.array([])),
        ])
        let ending2 = await Self.ending(orders, name: "g", shards: 4)
        #expect(
            ending2
                == "failed-precondition: feed group feedGroups/g was created with 3 shards, not 4: the count is fixed "
                + "when the group is created")
        try await group.collection("shards").document("1").setData(["owner": 7, "generation": 1, "heartbeat": 1])
        let ending3 = await Self.ending(orders, name: "g")
        #expect(
            ending3
                == "data-loss: feed group: feedGroups/g/shards/1 field owner should be a string, found 7; the "
                + "lease document was not written by firestore-feed")
        let ending4 = await Self.ending(orders.limit(to: 2), name: "h")
        #expect(
            ending4
                == "invalid-argument: a feed group watches a whole query, split by document name: it cannot have a "
                + "limit, an offset or cursors")
    }
}
