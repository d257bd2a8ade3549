import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A backfill's pages (batches of puts without a resume token) go into the table by `COPY` when it holds nothing of
/// their names, and end exactly as the version-guarded way would: the same rows, the resume point with its load
/// cursor in the same transaction (a restart goes on from it), the fence refusing a stale generation. A page over
/// names the table holds (a row, a tombstone in its range, a name twice) goes the guarded way. Which way a page went
/// is read from a statement trigger on the table that logs the first word of each statement that inserted rows.
@Suite(.timeLimit(.minutes(1)), PostgresFixture.enabled) struct PostgresMirrorLoadTests {
    typealias F = PostgresFixture

    /// A load page read at second `read`: no resume token, the cursor given.
    static func page(
        _ changes: [FeedSinkBatch.Change], read: Int64, cursor: String?, generation: Int64 = 0
    ) -> FeedSinkBatch {
        FeedSinkBatch(
            changes: changes, readTime: F.time(read), resumeToken: nil, generation: generation, query: "q",
            loadCursor: cursor.map { F.prefix + $0 })
    }

    /// A mirror into a fresh table that logs which statements inserted into it (`T_log`).
    static func loggedMirror(_ label: String) async throws -> (PostgresMirror, String) {
        let (mirror, table) = try await F.mirror(label)
        try F.execute(
            """
            CREATE TABLE \(table)_log (id serial PRIMARY KEY, statement text);
            CREATE FUNCTION \(table)_log() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO \(table)_log (statement) VALUES (split_part(current_query(), ' ', 1)); RETURN NULL; END
            $$;
            CREATE TRIGGER \(table)_log AFTER INSERT ON \(table) FOR EACH STATEMENT EXECUTE FUNCTION \(table)_log();
            """)
        return (mirror, table)
    }

    static func log(_ table: String) throws -> [String] {
        try F.lines("SELECT statement FROM \(table)_log ORDER BY id")
    }

    /// Every column of every row, sorted by name.
    static func everything(_ table: String) throws -> [String] {
        try F.lines("SELECT name, fields::text, create_time, update_time, read_time FROM \(table) ORDER BY name")
    }

    @Test func aLoadGoesByCopyAndARestartGoesOnFromItsCursor() async throws {
        let rich: [String: FirestoreValue] = [
            "max": .integer(.max), "bytes": .bytes(Data([0, 1, 0xff])), "nan": .double(.nan),
            "at": .timestamp(try Timestamp(seconds: 1_700_000_000, nanos: 123_456_789)), "half": .double(1.5),
            "ref": .reference("projects/p/databases/(default)/documents/a/b"),
            "geo": .geoPoint(GeoPoint(latitude: 48.5, longitude: -2.25)),
            "vector": .map(["__type__": "__vector__", "value": .array([.double(0.5), .double(-1)])]),
            "nested": .map(["list": .array([.integer(1), .string("x\u{e9}\"\n\\\t"), .null, .boolean(false)])]),
        ]
        let created = Document(name: F.prefix + "e\u{1F600}", fields: ["n": 5], createTime: nil, updateTime: F.time(9))
        let pages = [
            Self.page([F.put("a", updated: 5, ["n": 1]), F.put("b\tc", updated: 6, rich)], read: 20, cursor: "b\tc"),
            Self.page(
                [F.put("c\n", updated: 7, ["s": "x"]), F.put("d\u{e9}", updated: 8)], read: 20, cursor: "d\u{e9}"),
            Self.page([.put(created)], read: 20, cursor: nil),
        ]
        let (mirror, table) = try await Self.loggedMirror("load")
        var trips = mirror.statistics.roundTrips
        try await mirror.apply(pages[0])
        try await mirror.apply(pages[1])
        #expect(mirror.statistics.roundTrips - trips == 10)
        #expect(F.counts(mirror) == [2, 4, 0, 0])
        // A restart: a new mirror reads the cursor stored with the last page, and the load goes on after it.
        let restarted = try await PostgresMirror(url: try PostgresEnvironment.requireURL(), table: table)
        let stored = try await restarted.resumePoint(shard: 0)
        #expect(
            stored
                == FeedSinkResumePoint(
                    resumeToken: nil, readTime: F.time(20), generation: 0, query: "q", loadCursor: F.prefix + "d\u{e9}")
        )
        trips = restarted.statistics.roundTrips
        try await restarted.apply(pages[2])
        #expect(restarted.statistics.roundTrips - trips == 5)
        #expect(try await restarted.resumePoint(shard: 0)?.loadCursor == nil)
        #expect(try Self.log(table) == ["COPY", "COPY", "COPY"])
        #expect(
            try F.rows(table) == [
                "a \(F.stored(5)) {\"n\": {\"integerValue\": \"1\"}}",
                "b\tc \(F.stored(6)) {\"at\": {\"timestampValue\": \"2023-11-14T22:13:20.123456789Z\"}, \"geo\": "
                    + "{\"geoPointValue\": {\"latitude\": 48.5, \"longitude\": -2.25}}, \"max\": {\"integerValue\": "
                    + "\"9223372036854775807\"}, \"nan\": {\"doubleValue\": \"NaN\"}, \"ref\": {\"referenceValue\": "
                    + "\"projects/p/databases/(default)/documents/a/b\"}, \"half\": {\"doubleValue\": 1.5}, \"bytes\": "
                    + "{\"bytesValue\": \"AAH/\"}, \"nested\": {\"mapValue\": {\"fields\": {\"list\": {\"arrayValue\": "
                    + "{\"values\": [{\"integerValue\": \"1\"}, {\"stringValue\": \"x\u{e9}\\\"\\n\\\\\\t\"}, "
                    + "{\"nullValue\": null}, {\"booleanValue\": false}]}}}}}, \"vector\": {\"mapValue\": {\"fields\": "
                    + "{\"value\": {\"arrayValue\": {\"values\": [{\"doubleValue\": 0.5}, {\"doubleValue\": -1.0}]}}, "
                    + "\"__type__\": {\"stringValue\": \"__vector__\"}}}}}",
                "c\n \(F.stored(7)) {\"s\": {\"stringValue\": \"x\"}}",
                "d\u{e9} \(F.stored(8)) {}",
                "e\u{1F600} \(F.stored(9)) {\"n\": {\"integerValue\": \"5\"}}",
            ])
        #expect(
            try F.lines("SELECT count(*), count(create_time), min(read_time), max(read_time) FROM \(table)")
                == ["5 4 \(F.stored(20)) \(F.stored(20))"])
        // The same pages the guarded way (with a resume token) give the same table, byte for byte.
        let (guarded, other) = try await Self.loggedMirror("load_guarded")
        for page in pages {
            var batch = page
            batch.resumeToken = [1]
            try await guarded.apply(batch)
        }
        #expect(try Self.log(other) == ["WITH", "WITH", "WITH"])
        #expect(try Self.everything(other) == (try Self.everything(table)))
        #expect(F.counts(guarded) == [3, 5, 0, 0])
    }

    /// A page over a name the table holds: the primary key refuses the `COPY`, which is rolled back whole, and the
    /// page goes the guarded way (an older version ignored); the next page of new names goes by `COPY` again.
    @Test func aPageOverARowTheTableHoldsGoesTheGuardedWay() async throws {
        let (mirror, table) = try await Self.loggedMirror("load_held")
        try await mirror.apply(F.batch([F.put("a", updated: 10, ["v": 1])], read: 11))
        var trips = mirror.statistics.roundTrips
        try await mirror.apply(
            Self.page([F.put("a", updated: 5, ["v": 0]), F.put("b", updated: 5)], read: 20, cursor: "b"))
        // BEGIN, fence, the refused COPY; BEGIN, fence, the guarded INSERT, the resume point, COMMIT.
        #expect(mirror.statistics.roundTrips - trips == 8)
        trips = mirror.statistics.roundTrips
        try await mirror.apply(Self.page([F.put("c", updated: 6)], read: 20, cursor: nil))
        #expect(mirror.statistics.roundTrips - trips == 5)
        #expect(try Self.log(table) == ["WITH", "WITH", "COPY"])
        #expect(
            try F.rows(table) == [
                "a \(F.stored(10)) {\"v\": {\"integerValue\": \"1\"}}", "b \(F.stored(5)) {}", "c \(F.stored(6)) {}",
            ])
        #expect(F.counts(mirror) == [3, 3, 1, 0])
        #expect(try await mirror.resumePoint(shard: 0)?.loadCursor == nil)
    }

    /// A page with a tombstone in its names' range goes the guarded way: a document removed after the page's read
    /// time stays removed. A page whose range holds no tombstone goes by `COPY`.
    @Test func aPageOverATombstoneGoesTheGuardedWay() async throws {
        let (mirror, table) = try await Self.loggedMirror("load_stone")
        try await mirror.apply(F.batch([F.put("b", updated: 5)], read: 6))
        try await mirror.apply(F.batch([F.remove("b")], read: 15))
        try await mirror.apply(
            Self.page(
                [F.put("a", updated: 3), F.put("b", updated: 3), F.put("c", updated: 3)], read: 12, cursor: "c"))
        try await mirror.apply(Self.page([F.put("d", updated: 3), F.put("e", updated: 3)], read: 12, cursor: nil))
        #expect(try Self.log(table) == ["WITH", "WITH", "COPY"])
        #expect(try F.rows(table).map { String($0.prefix(1)) } == ["a", "c", "d", "e"])
        #expect(try F.tombstones(table) == ["b \(F.stored(15))"])
        #expect(F.counts(mirror) == [4, 6, 1, 0])
    }

    /// A name twice in one page: the `COPY` is refused, and the guarded way applies the changes in order.
    @Test func aNameTwiceInAPageAppliesInOrder() async throws {
        let (mirror, table) = try await Self.loggedMirror("load_twice")
        try await mirror.apply(
            Self.page([F.put("a", updated: 5, ["v": 5]), F.put("a", updated: 7, ["v": 7])], read: 8, cursor: nil))
        #expect(try Self.log(table) == ["WITH", "WITH"])
        #expect(try F.rows(table) == ["a \(F.stored(7)) {\"v\": {\"integerValue\": \"7\"}}"])
        #expect(F.counts(mirror) == [1, 2, 0, 0])
    }

    /// The fence refuses a load page of a stale generation before it copies anything.
    @Test func aStaleLoadPageIsRefusedAndChangesNothing() async throws {
        let (mirror, table) = try await Self.loggedMirror("load_fence")
        try await mirror.apply(Self.page([F.put("a", updated: 5)], read: 8, cursor: "a", generation: 2))
        await #expect(throws: FeedSinkStaleGeneration.self) {
            try await mirror.apply(Self.page([F.put("b", updated: 5)], read: 8, cursor: nil, generation: 1))
        }
        #expect(try F.rows(table) == ["a \(F.stored(5)) {}"])
        #expect(try await mirror.resumePoint(shard: 0)?.loadCursor == F.prefix + "a")
        #expect(try Self.log(table) == ["COPY"])
        #expect(F.counts(mirror) == [1, 1, 0, 1])
    }
}
