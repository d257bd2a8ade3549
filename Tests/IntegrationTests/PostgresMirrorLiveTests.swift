import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// A collection mirrored into PostgreSQL on the emulator (`query.mirror(into: PostgresMirror(...))`): the table equals
/// a direct query after creates, updates and deletes, and SQL reads the fields with `jsonb` operators; a restart
/// resumes from the stored resume point and receives the later writes, and the database's own audit (a trigger on the
/// table) shows no version written twice and none after a newer one.
@Suite(.timeLimit(.minutes(2)), .needsPostgres) struct PostgresMirrorLiveTests {
    final class Events: Sendable {
        let resumed = Mutex<[Timestamp?]>([])
        func note(_ event: FeedEvent) {
            if case .resumedFromCheckpoint(_, let readTime) = event { resumed.withLock { $0.append(readTime) } }
        }
    }

    /// Whether the mirror's documents equal the query's (names, fields, create and update times), within 60 s.
    static func converges(_ mirror: PostgresMirror, to query: Query) async -> Bool {
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

    /// Each row `sql` gives, its columns joined by a space (`NULL` as `NULL`).
    static func lines(_ sql: String) throws -> [String] {
        let connection = try PostgresConnection(url: try PostgresEnvironment.requireURL())
        return try connection.query(sql, doing: "a test's query").all.map { row in
            row.map { $0 ?? "NULL" }.joined(separator: " ")
        }
    }

    @Test func aCollectionIsMirroredAndAResumeAppliesNothingTwice() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let url = try PostgresEnvironment.requireURL()
        let db = try Firestore.emulator(host: host, projectID: EmulatorEnvironment.uniqueProjectID("pgmirror"))
        for (id, rank) in [("apple", 1), ("banana", 2), ("cherry", 3)] {
            try await db.document("fruits/\(id)").setData(["rank": .integer(Int64(rank)), "big": .integer(.max)])
        }
        let query = db.collection("fruits").query
        let table = PostgresEnvironment.uniqueTable("fruits")

        let first = try await PostgresMirror(url: url, table: table)
        let connection = try PostgresConnection(url: url)
        try connection.execute(PostgresAudit.install(on: table), doing: "installing the audit")
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
        // SQL on the mirror: the fields through jsonb operators, the names' last segment, the tombstone.
        #expect(
            try Self.lines(
                """
                SELECT regexp_replace(name, '^.*/', ''), (fields #>> '{rank,integerValue}')::bigint,
                    fields #>> '{bytes,bytesValue}', fields ? 'big' FROM \(table) ORDER BY fields -> 'rank' ->> 'integerValue'
                """) == ["cherry 3 NULL t", "date 4 NULL f", "apple 5 AP8= f"])
        #expect(try Self.lines("SELECT regexp_replace(name, '^.*/', '') FROM \(table)_tombstones") == ["banana"])

        let events = Events()
        let second = try await PostgresMirror(url: url, table: table)
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
        // Written: 3 adds, apple and date, then cherry and fig: 7 versions, none twice, none after a newer one.
        #expect(try Self.lines(PostgresAudit.check(table)) == ["7 0 0"])
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips the suite without `FIRESTORE_FEED_TEST_POSTGRES_URL`, except under CI (see `PostgresEnvironment`).
    static var needsPostgres: Self {
        .enabled(if: PostgresEnvironment.enabled, Comment(rawValue: PostgresEnvironment.skipMessage))
    }
}
