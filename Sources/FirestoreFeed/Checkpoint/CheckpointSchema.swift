/// The checkpoint store's file format: an SQLite 3 database (https://www.sqlite.org/fileformat.html) marked with
/// `PRAGMA application_id` 0x46464350 ("FFCP") and holding its schema version in `PRAGMA user_version`.
///
/// Version 1:
/// - `feeds`: one row per key: the query it was written for (``QueryIdentity``), the source and delta
///   field, the `readTime` of the last snapshot the consumer finished with, the delta watermark, the last keys
///   scan, a Listen resume token, how many documents the snapshot held, a generation counter (each commit expects
///   the one it loaded, so no two writers interleave), the wall-clock time of the commit, and a checksum.
/// - `documents`: one row per document of that snapshot: its name, `updateTime`, the whole document as REST JSON
///   (`Document.restJSON()`: fields and times, every value type kept exactly) and a checksum.
///
/// Rows are keyed by `(feed, name)` with SQLite's binary collation, so names compare byte for byte as Firestore's
/// do. Text columns hold UTF-8; times are RFC 3339 with nanoseconds.
enum CheckpointSchema {
    /// The version this library writes and reads.
    static let version: Int64 = 1
    /// `PRAGMA application_id` of a checkpoint store: "FFCP".
    static let applicationID: Int64 = 0x4646_4350

    /// The `feeds` table, as it is written and as `sqlite_schema.sql` holds it.
    static let feedsTable = """
        CREATE TABLE feeds (
            key TEXT PRIMARY KEY NOT NULL,
            query TEXT NOT NULL,
            source TEXT NOT NULL,
            delta_field TEXT,
            read_time TEXT,
            delta_watermark TEXT,
            last_keys_scan TEXT,
            resume_token BLOB,
            document_count INTEGER NOT NULL,
            generation INTEGER NOT NULL,
            committed_at TEXT NOT NULL,
            checksum INTEGER NOT NULL
        ) STRICT
        """

    /// The `documents` table, as it is written and as `sqlite_schema.sql` holds it.
    static let documentsTable = """
        CREATE TABLE documents (
            feed TEXT NOT NULL,
            name TEXT NOT NULL,
            update_time TEXT,
            document TEXT NOT NULL,
            checksum INTEGER NOT NULL,
            PRIMARY KEY (feed, name)
        ) STRICT, WITHOUT ROWID
        """

    /// What `SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid` gives for a store of this version,
    /// one row per line, columns joined with a tab (`NULL` as an empty column): the two tables and the index SQLite
    /// makes for the key of `feeds`. A store whose schema differs (a damaged `sqlite_schema` page) is refused.
    static let schemaRows = [
        "table\tfeeds\tfeeds\t\(feedsTable)", "index\tsqlite_autoindex_feeds_1\tfeeds\t",
        "table\tdocuments\tdocuments\t\(documentsTable)",
    ]

    static let create = """
        PRAGMA application_id = \(applicationID);
        PRAGMA user_version = \(version);
        \(feedsTable);
        \(documentsTable);
        """
}
