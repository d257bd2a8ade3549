import FirestoreREST

/// The tables of an ``SQLiteMirror`` named `T` (default `documents`), as they are written and as `sqlite_schema.sql`
/// holds them. The shape is stable: build views and indexes on it.
///
/// - `T`: one row per document of the query's result: `name` (the full resource name, the key, compared byte for
///   byte as Firestore does), `fields` (the fields as REST `Value` JSON, keys sorted: int64 as strings, bytes in
///   base64, timestamps to the nanosecond, references, NaN as `"NaN"`, vectors as their maps), `create_time`,
///   `update_time`, and `read_time` (of the snapshot that applied the row).
/// - `T_tombstones`: one row per document that left the result: `name`, `update_time` (of the last version the
///   mirror held, if any) and `removed_at` (the read time of the snapshot that saw it leave). A change whose
///   `updateTime` is not after `removed_at` is ignored; one after it brings the document back and drops the tombstone.
/// - `T_resume`: one row per shard (0 for a plain feed): the Listen `resume_token`, the `read_time` and the
///   `generation` (fencing token) of the last snapshot applied, its `query` (parent, canonical `StructuredQuery`
///   JSON, limit kind), and `load_cursor` (while a backfill is in progress: the name of the last document loaded,
///   every page read at `read_time`; `NULL` otherwise), written in the same transaction as its rows. A file from
///   before `load_cursor` gets the column (`ALTER TABLE ... ADD COLUMN`) when opened.
///
/// Times are text, RFC 3339 in UTC with exactly 9 fraction digits (`2026-12-06T05:01:02.000000000Z`), so they sort
/// and compare as text exactly as the times do.
enum SQLiteMirrorSchema {
    /// `T` itself.
    static func documentsTable(_ table: String) -> String {
        """
        CREATE TABLE "\(table)" (
            name TEXT PRIMARY KEY NOT NULL,
            fields TEXT NOT NULL,
            create_time TEXT,
            update_time TEXT NOT NULL,
            read_time TEXT NOT NULL
        ) STRICT, WITHOUT ROWID
        """
    }

    /// `T_tombstones`.
    static func tombstonesTable(_ table: String) -> String {
        """
        CREATE TABLE "\(table)_tombstones" (
            name TEXT PRIMARY KEY NOT NULL,
            update_time TEXT,
            removed_at TEXT NOT NULL
        ) STRICT, WITHOUT ROWID
        """
    }

    /// `T_resume`, as created: the shape of ``resumeTableBeforeLoadCursor(_:)`` with `load_cursor` added, written
    /// exactly as SQLite rewrites that statement for `ALTER TABLE ... ADD COLUMN load_cursor TEXT` (so a file
    /// migrated from the earlier shape and a new one hold the same statement in `sqlite_schema`).
    static func resumeTable(_ table: String) -> String {
        """
        CREATE TABLE "\(table)_resume" (
            shard INTEGER PRIMARY KEY NOT NULL,
            resume_token BLOB,
            read_time TEXT,
            generation INTEGER NOT NULL,
            query TEXT
        , load_cursor TEXT) STRICT
        """
    }

    /// `T_resume` as files written before the backfill (issue 36) hold it, without `load_cursor`: opening such a file
    /// adds the column (``loadCursorMigration(_:)``), nothing else changes.
    static func resumeTableBeforeLoadCursor(_ table: String) -> String {
        """
        CREATE TABLE "\(table)_resume" (
            shard INTEGER PRIMARY KEY NOT NULL,
            resume_token BLOB,
            read_time TEXT,
            generation INTEGER NOT NULL,
            query TEXT
        ) STRICT
        """
    }

    /// The statement that brings a `T_resume` of the earlier shape to the current one.
    static func loadCursorMigration(_ table: String) -> String {
        "ALTER TABLE \"\(table)_resume\" ADD COLUMN load_cursor TEXT"
    }

    /// The three tables by name, with their `CREATE TABLE` statements.
    static func tables(_ table: String) -> [(name: String, sql: String)] {
        [
            (table, documentsTable(table)), (table + "_tombstones", tombstonesTable(table)),
            (table + "_resume", resumeTable(table)),
        ]
    }

    /// Checks that `table` is a plain SQL identifier: an ASCII letter or `_`, then letters, digits or `_`, at most
    /// 48 characters, not starting with `sqlite_` (SQLite's own).
    /// - Throws: `FirestoreError` `.invalidArgument` naming the table.
    static func validate(table: String) throws(FirestoreError) {
        let bytes = Array(table.utf8)
        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
        guard let first = bytes.first, isLetter(first), bytes.count <= 48,
            bytes.allSatisfy({ isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            !table.lowercased().hasPrefix("sqlite_")
        else {
            throw .invalidArgument(
                "SQLite mirror table \"\(table)\": not a plain identifier (a letter or _, then letters, digits or _, "
                    + "at most 48, not starting with sqlite_)")
        }
    }
}
