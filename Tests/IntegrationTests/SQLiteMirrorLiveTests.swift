import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// A collection mirrored into an SQLite file on the emulator (`query.mirror(into: SQLiteMirror(...))`): the table
/// equals a direct query after creates, updates and deletes; a restart resumes from the stored resume point, applies
/// nothing twice, and receives the later writes.
@Suite(.timeLimit(.minutes(2))) struct SQLiteMirrorLiveTests {
    final class Events: Sendable {
        let resumed = Mutex<[Timestamp?]>([])
        func note(_ event: FeedEvent) {
            if case .resumedFromCheckpoint(_, let readTime) = event { resumed.withLock { $0.append(readTime) } }
        }
    }

    /// Whether the mirror's documents equal the query's (names, fields, create and update times), within 60 s.
    static func converges(_ mirror: SQLiteMirror, to query: Query) async -> Bool {
        await eventuallyAsync(seconds: 60) {
            guard let direct = try? await query.getDocuments(), let held = try? await mirror.documents() else {
                return false
            }
            let expected = direct.documents.compactMap(\.document).sorted {
                Array($0.name.utf8).lexicographicallyPrecedes($1.name.utf8)
            }
            return held == expected
        }
    }

    @Test func aCollectionIsMirroredAndAResumeAppliesNothingTwice() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(host: host, projectID: EmulatorEnvironment.uniqueProjectID("mirror"))
        for (id, rank) in [("apple", 1), ("banana", 2), ("cherry", 3)] {
            try await db.document("fruits/\(id)").setData(["rank": .integer(Int64(rank)), "big": .integer(.max)])
        }
        let query = db.collection("fruits").query
        let path = NSTemporaryDirectory() + "mirror-live-\(UUID().uuidString).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }

        let first = try await SQLiteMirror(path: path, table: "fruits")
        let run = Task { try await query.mirror(into: first) }
        #expect(await Self.converges(first, to: query))
        try await db.document("fruits/apple").setData(["rank": 5, "bytes": .bytes(Data([0, 255]))])
        try await db.document("fruits/banana").delete()
        try await db.document("fruits/date").setData(["rank": 4])
        #expect(await Self.converges(first, to: query))
        run.cancel()
        try await run.value
        // 3 added, then apple modified, banana removed, date added.
        #expect(first.statistics.applied == 6)
        #expect(first.statistics.refused == 0)
        let stored = try #require(try await first.resumePoint(shard: 0))
        #expect(stored.resumeToken?.isEmpty == false)

        let events = Events()
        let second = try await SQLiteMirror(path: path, table: "fruits")
        let resumed = Task { try await query.mirror(into: second, onEvent: events.note) }
        #expect(await eventually(seconds: 60) { second.statistics.batches >= 1 })
        #expect(events.resumed.withLock { $0 } == [stored.readTime])
        #expect(second.statistics.applied == 0)
        try await db.document("fruits/cherry").setData(["rank": 6])
        try await db.document("fruits/fig").setData(["rank": 7])
        #expect(await Self.converges(second, to: query))
        #expect(await eventually(seconds: 60) { second.statistics.applied == 2 })
        resumed.cancel()
        try await resumed.value
        #expect(second.statistics.applied == 2)
        #expect(try await second.documents().map(\.id) == ["apple", "cherry", "date", "fig"])
    }
}
