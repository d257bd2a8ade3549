import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// A feed group mirrored into an SQLite file (`group.mirror(into:)`) on the emulator: each shard's batches carry the
/// shard and its lease's generation, the table equals the query, and a store holding generations the group never gave
/// refuses its batches and ends the member with an error that says why.
@Suite(.timeLimit(.minutes(3))) struct FeedGroupMirrorLiveTests {
    static func options(_ member: String) -> FeedGroupOptions {
        FeedGroupOptions(
            member: member, shards: 3, leaseDuration: .seconds(30), renewInterval: .seconds(1),
            policy: PollingPolicy(interval: .milliseconds(200)))
    }

    static func temporaryFile() -> String {
        NSTemporaryDirectory() + "group-mirror-\(UUID().uuidString).sqlite"
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func seed(_ db: Firestore, count: Int) async throws {
        let batch = db.batch()
        for index in 0..<count {
            try batch.setData(
                ["n": .integer(Int64(index))], forDocument: db.document(String(format: "orders/o%02d", index)))
        }
        _ = try await batch.commit()
    }

    @Test func aMembersShardsAreMirroredWithTheirGenerations() async throws {
        let db = try Firestore.emulator(
            host: try EmulatorEnvironment.requireHost(), projectID: EmulatorEnvironment.uniqueProjectID("group-mirror"))
        try await Self.seed(db, count: 30)
        let path = Self.temporaryFile()
        defer { Self.remove(path) }
        let mirror = try await SQLiteMirror(path: path, table: "orders")
        let group = FeedGroup(db.collection("orders"), name: "orders", options: Self.options("a"))
        let run = Task { try await group.mirror(into: mirror) }
        let query = db.collection("orders").query
        #expect(await SQLiteMirrorLiveTests.converges(mirror, to: query))
        try await db.document("orders/o05").setData(["n": 105])
        try await db.document("orders/o25").delete()
        try await db.document("orders/o30").setData(["n": 30])
        #expect(await SQLiteMirrorLiveTests.converges(mirror, to: query))
        run.cancel()
        try await run.value
        // 30 added, then o05 modified, o25 removed, o30 added; nothing refused.
        #expect(mirror.statistics.applied == 33)
        #expect(mirror.statistics.refused == 0)
        // One resume point per shard, each at the generation its lease was first taken at.
        var generations: [Int64?] = []
        for shard in 0..<3 { generations.append(try await mirror.resumePoint(shard: shard)?.generation) }
        #expect(generations == [1, 1, 1])
    }

    @Test func aStoreHoldingAnotherGroupsGenerationsRefusesTheShardAndTheMemberEndsSayingWhy() async throws {
        let db = try Firestore.emulator(
            host: try EmulatorEnvironment.requireHost(),
            projectID: EmulatorEnvironment.uniqueProjectID("group-mirror-fence"))
        try await Self.seed(db, count: 30)
        let path = Self.temporaryFile()
        defer { Self.remove(path) }
        let mirror = try await SQLiteMirror(path: path, table: "orders")
        // Shard 1 written by another group at generation 5: this group's first lease of it is generation 1.
        try await mirror.apply(
            FeedSinkBatch(changes: [], readTime: .now(), resumeToken: nil, shard: 1, generation: 5))
        let lost = Mutex<[String]>([])
        let group = FeedGroup(db.collection("orders"), name: "orders", options: Self.options("a")) { event in
            if case .leaseLost(let shard, let generation, let reason) = event {
                lost.withLock { $0.append("\(shard) \(generation) \(reason)") }
            }
        }
        let error = await #expect(throws: FirestoreError.self) { try await group.mirror(into: mirror) }
        #expect(error?.code == .failedPrecondition)
        let expected = "holds shard 1 at generation 1, and SQLite mirror \(path) table orders holds generation 5 for it"
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
        #expect(
            lost.withLock { $0 }
                == ["1 1 the sink holds generation 5 for the shard: another member took its lease"])
        // Nothing of shard 1 (o10...o19) was applied; its resume point is still the other group's.
        let names = try await mirror.documents().map(\.id)
        #expect(!names.contains { $0 >= "o10" && $0 < "o20" })
        #expect(try await mirror.resumePoint(shard: 1)?.generation == 5)
        #expect(mirror.statistics.refused >= 1)
    }
}
