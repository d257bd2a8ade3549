import FirestoreREST

/// The tables of a ``PostgresMirror`` named `T` (default `documents`), in the connection's current schema (the first
/// of its `search_path`). The shape is stable: build views and indexes on it.
///
/// - `T`: one row per document of the query's result: `name` (the full resource name, the key, `COLLATE "C"` so it
///   sorts byte for byte as Firestore compares names), `fields` (`jsonb`, the fields as REST `Value` JSON: int64 as
///   strings, bytes in base64, timestamps to the nanosecond, references, NaN as `"NaN"`, vectors as their maps),
///   `create_time`, `update_time`, and `read_time` (of the snapshot that applied the row).
/// - `T_tombstones`: one row per document that left the result: `name`, `update_time` (of the last version the
///   mirror held, if any) and `removed_at` (the read time of the snapshot that saw it leave).
/// - `T_resume`: one row per shard (0 for a plain feed): the Listen `resume_token`, the `read_time`, the `generation`
///   (fencing token) and the `query` of the last snapshot applied, written in the same transaction as its rows, and
///   `load_cursor` (a backfill's last loaded document name while its load goes on; `NULL` otherwise).
///
/// Times are `text COLLATE "C"`, RFC 3339 in UTC with exactly 9 fraction digits (`2026-12-06T05:01:02.123456789Z`):
/// lossless (PostgreSQL's `timestamptz` keeps microseconds, Firestore's times have nanoseconds), and they sort and
/// compare as text exactly as the times do. `update_time::timestamptz` gives a `timestamptz` (rounded to the
/// microsecond) for date arithmetic.
enum PostgresMirrorSchema {
    /// One column as `information_schema.columns` describes it: name, `data_type`, collation (or `nil`), nullable.
    struct Column: Equatable {
        let name: String
        let type: String
        let collation: String?
        let nullable: Bool

        static func text(_ name: String, nullable: Bool = false) -> Column {
            Column(name: name, type: "text", collation: "C", nullable: nullable)
        }
    }

    /// The three tables by name, with their columns and `CREATE TABLE` statements.
    static func tables(_ table: String) -> [(name: String, columns: [Column], sql: String)] {
        [
            (
                table,
                [
                    .text("name"), Column(name: "fields", type: "jsonb", collation: nil, nullable: false),
                    .text("create_time", nullable: true), .text("update_time"), .text("read_time"),
                ],
                """
                CREATE TABLE "\(table)" (
                    name text COLLATE "C" PRIMARY KEY,
                    fields jsonb NOT NULL,
                    create_time text COLLATE "C",
                    update_time text COLLATE "C" NOT NULL,
                    read_time text COLLATE "C" NOT NULL
                )
                """
            ),
            (
                table + "_tombstones",
                [.text("name"), .text("update_time", nullable: true), .text("removed_at")],
                """
                CREATE TABLE "\(table)_tombstones" (
                    name text COLLATE "C" PRIMARY KEY,
                    update_time text COLLATE "C",
                    removed_at text COLLATE "C" NOT NULL
                )
                """
            ),
            (
                table + "_resume",
                [
                    Column(name: "shard", type: "bigint", collation: nil, nullable: false),
                    Column(name: "resume_token", type: "bytea", collation: nil, nullable: true),
                    .text("read_time", nullable: true),
                    Column(name: "generation", type: "bigint", collation: nil, nullable: false),
                    Column(name: "query", type: "text", collation: nil, nullable: true),
                    Column(name: "load_cursor", type: "text", collation: "C", nullable: true),
                ],
                """
                CREATE TABLE "\(table)_resume" (
                    shard bigint PRIMARY KEY,
                    resume_token bytea,
                    read_time text COLLATE "C",
                    generation bigint NOT NULL,
                    query text,
                    load_cursor text COLLATE "C"
                )
                """
            ),
        ]
    }

    /// Creates the tables that are missing, under an advisory lock (two mirrors opening at once do not race), and
    /// refuses a table of one of their names with another shape.
    /// - Throws: `FirestoreError` `.failedPrecondition` naming the table and the columns it has.
    static func create(_ table: String, on connection: PostgresConnection) throws(FirestoreError) {
        try connection.transaction(doing: "creating the tables of \(table)") { () throws(FirestoreError) in
            try connection.query(
                "SELECT pg_advisory_xact_lock(hashtext('firestore-postgres-mirror ' || $1))", [.text(table)],
                doing: "locking the tables of \(table)")
            for (name, expected, sql) in tables(table) {
                let rows = try connection.query(
                    """
                    SELECT column_name, data_type, collation_name, is_nullable FROM information_schema.columns
                    WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position
                    """, [.text(name)], doing: "reading the shape of \(name)")
                guard rows.count > 0 else {
                    try connection.execute(sql, doing: "creating table \(name)")
                    continue
                }
                let columns = (0..<rows.count).map { row in
                    Column(
                        name: rows.text(row, 0) ?? "", type: rows.text(row, 1) ?? "", collation: rows.text(row, 2),
                        nullable: rows.text(row, 3) == "YES")
                }
                guard columns == expected else {
                    let described = columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
                    throw FirestoreError(
                        code: .failedPrecondition,
                        message: "PostgreSQL mirror \(connection.place): table \(name) exists with another shape "
                            + "(\(described.prefix(200))); refusing to write to it (choose another table name)")
                }
            }
        }
    }

    /// Checks that `table` is a plain lowercase SQL identifier: an ASCII lowercase letter or `_`, then lowercase
    /// letters, digits or `_`, at most 48 characters (with `_tombstones`, under PostgreSQL's 63), not starting with
    /// `pg_` (PostgreSQL's own). Lowercase, so that SQL written without quotes names the same table.
    /// - Throws: `FirestoreError` `.invalidArgument` naming the table.
    static func validate(table: String) throws(FirestoreError) {
        let bytes = Array(table.utf8)
        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_")
        }
        guard let first = bytes.first, isLetter(first), bytes.count <= 48,
            bytes.allSatisfy({ isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            !table.hasPrefix("pg_")
        else {
            throw .invalidArgument(
                "PostgreSQL mirror table \"\(table)\": not a plain lowercase identifier (a lowercase letter or _, "
                    + "then lowercase letters, digits or _, at most 48, not starting with pg_)")
        }
    }
}
