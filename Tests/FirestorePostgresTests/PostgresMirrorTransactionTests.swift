import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The PostgreSQL mirror's transactions: the fencing token refuses a stale generation (changing nothing, counted), the
/// resume point round-trips, a batch a trigger refuses mid-way leaves neither rows nor resume point changed, a lost
/// connection is opened again, and the table name and shape are checked.
@Suite(.timeLimit(.minutes(1)), PostgresFixture.enabled) struct PostgresMirrorTransactionTests {
    typealias F = PostgresFixture

    @Test func aStaleGenerationIsRefusedAndChangesNothing() async throws {
        let (mirror, table) = try await F.mirror("fence")
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11, token: "g5", shard: 2, generation: 5))
        let stale = F.batch([F.put("a", updated: 20), F.put("b", updated: 20)], read: 21, shard: 2, generation: 4)
        let error = await #expect(throws: FeedSinkStaleGeneration.self) { try await mirror.apply(stale) }
        #expect(
            error?.description
                == "PostgreSQL mirror \(mirror.url) table \(table): shard 2: refused a batch of generation 4, below "
                + "the generation 5 stored for the shard (a stale writer: its lease passed to another member)")
        #expect(try F.rows(table) == ["a \(F.stored(10)) {}"])
        #expect(
            try await mirror.resumePoint(shard: 2)
                == FeedSinkResumePoint(resumeToken: Array("g5".utf8), readTime: F.time(11), generation: 5))
        // Another shard has a fence of its own; the same or a higher generation is accepted.
        try await mirror.apply(F.batch([F.put("b", updated: 20)], read: 21, shard: 1, generation: 1))
        try await mirror.apply(F.batch([F.put("c", updated: 22)], read: 23, shard: 2, generation: 5))
        try await mirror.apply(F.batch([F.put("d", updated: 24)], read: 25, shard: 2, generation: 6))
        #expect(try F.rows(table).map { String($0.prefix(1)) } == ["a", "b", "c", "d"])
        #expect(F.counts(mirror) == [4, 4, 0, 1])
        #expect(try await mirror.resumePoint(shard: 2)?.generation == 6)
        #expect(try F.lines("SELECT shard, generation FROM \(table)_resume ORDER BY shard") == ["1 1", "2 6"])
    }

    /// Two mirrors on one table (two members of a feed group, one stale): the newer generation's writes stand.
    @Test func aStaleWriterOnAnotherConnectionIsRefused() async throws {
        let (newer, table) = try await F.mirror("fence_two")
        let older = try await PostgresMirror(url: try PostgresEnvironment.requireURL(), table: table)
        try await older.apply(F.batch([F.put("a", updated: 10)], read: 11, generation: 1))
        try await newer.apply(F.batch([F.put("a", updated: 12, ["v": 2])], read: 13, generation: 2))
        await #expect(throws: FeedSinkStaleGeneration.self) {
            try await older.apply(F.batch([F.put("a", updated: 14, ["v": 1])], read: 15, generation: 1))
        }
        #expect(try F.rows(table) == ["a \(F.stored(12)) {\"v\": {\"integerValue\": \"2\"}}"])
        #expect(F.counts(older) == [1, 1, 0, 1])
    }

    @Test func theResumePointRoundTrips() async throws {
        let table = PostgresEnvironment.uniqueTable("orders")
        let url = try PostgresEnvironment.requireURL()
        let query = "projects/p/databases/(default)/documents {\"from\":[{\"collectionId\":\"orders\"}]}"
        do {
            let mirror = try await PostgresMirror(url: url, table: table)
            #expect(try await mirror.resumePoint(shard: 0) == nil)
            try await mirror.apply(
                FeedSinkBatch(
                    changes: [], readTime: F.time(7, 123_456_789), resumeToken: [0, 1, 0xfe, 0xff], shard: 0,
                    generation: 3, query: query))
            try await mirror.apply(
                FeedSinkBatch(changes: [], readTime: F.time(8), resumeToken: [], shard: 1, generation: 0))
            try await mirror.apply(
                FeedSinkBatch(changes: [], readTime: F.time(9), resumeToken: nil, shard: 2, generation: 0))
        }
        let reopened = try await PostgresMirror(url: url, table: table)
        #expect(
            try await reopened.resumePoint(shard: 0)
                == FeedSinkResumePoint(
                    resumeToken: [0, 1, 0xfe, 0xff], readTime: F.time(7, 123_456_789), generation: 3, query: query))
        #expect(
            try await reopened.resumePoint(shard: 1)
                == FeedSinkResumePoint(resumeToken: [], readTime: F.time(8), generation: 0))
        #expect(
            try await reopened.resumePoint(shard: 2)
                == FeedSinkResumePoint(resumeToken: nil, readTime: F.time(9), generation: 0))
        #expect(try await reopened.resumePoint(shard: 3) == nil)
        #expect(
            try F.lines(
                "SELECT shard, encode(resume_token, 'hex'), read_time, generation, load_cursor FROM \(table)_resume "
                    + "ORDER BY shard") == [
                    "0 0001feff \(F.time(7).rfc3339.dropLast()).123456789Z 3 NULL",
                    "1  \(F.stored(8)) 0 NULL", "2 NULL \(F.stored(9)) 0 NULL",
                ])
    }

    /// A batch whose third row a trigger of the database refuses is rolled back whole: the first rows, the removal and
    /// the new resume point are not in the table; the error names the table and carries the server's message.
    @Test func aBatchATriggerRefusesChangesNothing() async throws {
        let (mirror, table) = try await F.mirror("atomic")
        try F.execute(
            """
            CREATE FUNCTION \(table)_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.fields ? 'poison' THEN RAISE EXCEPTION 'poisoned row %', NEW.name; END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER \(table)_refuse BEFORE INSERT OR UPDATE ON \(table)
                FOR EACH ROW EXECUTE FUNCTION \(table)_refuse();
            """)
        try await mirror.apply(F.batch([F.put("a", updated: 10), F.put("z", updated: 10)], read: 11, token: "before"))
        let broken = F.batch(
            [
                F.put("a", updated: 20, ["v": 2]), F.put("b", updated: 20), F.put("c", updated: 20, ["poison": true]),
                F.remove("z"),
            ],
            read: 21, token: "after")
        let error = await #expect(throws: FirestoreError.self) { try await mirror.apply(broken) }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "PostgreSQL \(mirror.url): writing 3 rows of \(table) (the first \(F.prefix)a): poisoned row "
                + "\(F.prefix)c (SQLSTATE P0001)")
        #expect(try F.rows(table) == ["a \(F.stored(10)) {}", "z \(F.stored(10)) {}"])
        #expect(try F.tombstones(table) == [])
        #expect(
            try await mirror.resumePoint(shard: 0)
                == FeedSinkResumePoint(resumeToken: Array("before".utf8), readTime: F.time(11), generation: 0))
        #expect(F.counts(mirror) == [1, 2, 0, 0])
        // The connection is usable after the rollback.
        try await mirror.apply(F.batch([F.put("b", updated: 20)], read: 21))
        #expect(try F.rows(table).count == 3)
    }

    @Test func aDocumentWithoutAnUpdateTimeIsRefusedBeforeAnythingIsSent() async throws {
        let (mirror, table) = try await F.mirror("noversion")
        let broken = F.batch([F.put("a", updated: 20), .put(Document(name: F.prefix + "c"))], read: 21)
        let error = await #expect(throws: FirestoreError.self) { try await mirror.apply(broken) }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message
                == "PostgreSQL mirror \(mirror.url) table \(table): document \(F.prefix)c has no updateTime, so no "
                + "version to guard; nothing of its batch applied")
        #expect(try F.rows(table) == [])
    }

    /// A connection the server ends (a restart, an administrator) fails the batch under way with `.unavailable`,
    /// nothing applied; the next batch connects again.
    @Test func aLostConnectionIsOpenedAgain() async throws {
        let table = PostgresEnvironment.uniqueTable("lost")
        let mirror = try await PostgresMirror(
            url: try PostgresEnvironment.requireURL() + "&application_name=\(table)", table: table)
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        #expect(
            try F.lines("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(table)'")
                == ["t"])
        let error = await #expect(throws: FirestoreError.self) {
            try await mirror.apply(F.batch([F.put("b", updated: 12)], read: 13))
        }
        #expect(error?.code == .unavailable)
        try await mirror.apply(F.batch([F.put("c", updated: 14)], read: 15))
        #expect(try F.rows(table).map { String($0.prefix(1)) } == ["a", "c"])
    }

    @Test func aTableOfTheSameNameWithAnotherShapeIsRefused() async throws {
        let table = PostgresEnvironment.uniqueTable("shape")
        try F.execute("CREATE TABLE \(table) (id integer PRIMARY KEY)")
        let error = await #expect(throws: FirestoreError.self) {
            _ = try await PostgresMirror(url: try PostgresEnvironment.requireURL(), table: table)
        }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "PostgreSQL mirror \(PostgresConnection.redact(try PostgresEnvironment.requireURL())): table "
                + "\(table) exists with another shape (id integer); refusing to write to it (choose another table name)"
        )
        #expect(try F.lines("SELECT count(*) FROM \(table)") == ["0"])
    }
}
