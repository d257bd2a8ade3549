import FirestoreREST
import Synchronization

/// A ``FeedSink`` in an SQLite file (the system `libsqlite3`): a query's result mirrored into a table, one row per
/// document, with the feed's resume point and fencing token in the same transactions, so each change takes effect
/// exactly once in the file (see ``FeedSink`` for the rule, and the shape of the tables below).
///
/// - Tables (named after ``table``, default `documents`; the shape is stable, so build views and indexes on it):
///   `T (name TEXT PRIMARY KEY, fields TEXT, create_time TEXT, update_time TEXT, read_time TEXT)`, the documents,
///   their fields as REST `Value` JSON (nothing lost: int64 as strings, bytes in base64, timestamps to the
///   nanosecond, references, NaN, vectors); `T_tombstones (name, update_time, removed_at)`, the documents that left;
///   `T_resume (shard, resume_token, read_time, generation, query, load_cursor)` (a file
///   from before `load_cursor` gets the column when opened). Times are RFC 3339 text in UTC with 9 fraction digits
///   (they sort as the times do). The file may hold other tables: yours to join with.
/// - Version guard: a document is written only when its `updateTime` is after the row's and its tombstone (if any)
///   was left before the snapshot's read time; a removal deletes the row and leaves a tombstone at the snapshot's read
///   time, unless a snapshot after it wrote the row (`read_time`) or it holds a version at or after it. A change
///   delivered twice is a no-op, and a late one (from a snapshot before the tombstone) never brings a document back; a
///   document that left the result and came back unchanged (a `limit` window) is written again.
/// - Fencing: a batch whose generation is below the one stored for its shard is refused with
///   ``FeedSinkStaleGeneration``, changing nothing (counted in ``statistics``).
/// - Tombstones: kept until ``pruneTombstones(removedBefore:)``; prune only those older than any change a writer may
///   still deliver late: ``tombstoneHorizon`` (7 days, the longest read-time window Firestore serves, with
///   point-in-time recovery) is safe.
/// - File: created when missing; WAL journal mode with `synchronous = NORMAL`: a commit survives the process being
///   killed at any moment; a power loss may undo the last commits, rows and resume point together, so their changes
///   are delivered again. A table of this name with another shape is refused (`.failedPrecondition`).
/// - Threads: SQLite runs on a thread of the mirror's own (`BlockingExecutor`), never on a Swift concurrency thread.
public final class SQLiteMirror: FeedSink {
    /// The database file.
    public let path: String
    /// The documents' table; the others are named after it (`_tombstones`, `_resume`).
    public let table: String
    /// How long tombstones must be kept: 7 days, the longest read-time window Firestore serves (with point-in-time
    /// recovery; 1 hour without). A change older than that cannot be delivered, so a tombstone older than it guards
    /// nothing.
    public static let tombstoneHorizon = Duration.seconds(7 * 24 * 3600)

    private let worker: BlockingExecutor
    private let connection: ConnectionBox
    private let counts = Mutex(Statistics())

    /// What the mirror did since it opened.
    public struct Statistics: Sendable, Hashable {
        /// Batches committed.
        public var batches = 0
        /// Changes that changed a row (written, removed, or brought back).
        public var applied = 0
        /// Changes the version guard ignored (a version at or before what the mirror held: a duplicate or a late one).
        public var ignored = 0
        /// Batches refused for a stale generation (``FeedSinkStaleGeneration``).
        public var refused = 0
    }

    /// The SQLite connection, used only inside jobs of ``worker`` (one at a time, in order): that confinement is
    /// what makes the `@unchecked Sendable` sound.
    private final class ConnectionBox: @unchecked Sendable {
        let connection: SQLiteConnection
        init(_ connection: SQLiteConnection) { self.connection = connection }
    }

    /// How long a transaction waits for another writer of the file before it fails, when no `busyTimeout` is given.
    public static let defaultBusyTimeout = Duration.seconds(10)

    /// Opens the mirror in the file at `path` (created when missing), creating its tables when missing.
    /// - Parameters:
    ///   - busyTimeout: how long a transaction waits for the file's write lock while another connection holds it
    ///     (SQLite's `sqlite3_busy_timeout`: the sum of its waits, in milliseconds, not the clock's time, so a paused
    ///     process waits no less), before the batch fails with `.unavailable`. Raise it when several members of a
    ///     feed group, or other writers, share the file.
    /// - Throws: `FirestoreError` naming the file: `.invalidArgument` when `table` is not a plain identifier (a letter
    ///   or `_`, then letters, digits or `_`, at most 48); `.failedPrecondition` when a table of its names has another
    ///   shape; `.dataLoss` for a file that is not an SQLite database; `.permissionDenied` when it cannot be opened.
    public init(
        path: String, table: String = "documents", busyTimeout: Duration = SQLiteMirror.defaultBusyTimeout
    ) async throws(FirestoreError) {
        try SQLiteMirrorSchema.validate(table: table)
        self.path = path
        self.table = table
        let worker = BlockingExecutor(name: "sqlite-mirror")
        self.worker = worker
        connection = try await worker.run { () throws(FirestoreError) -> ConnectionBox in
            ConnectionBox(try Self.connect(path: path, table: table, busyTimeout: busyTimeout))
        }
    }

    /// What the mirror did since it opened.
    public var statistics: Statistics { counts.withLock { $0 } }

    public func resumePoint(shard: Int) async throws -> FeedSinkResumePoint? {
        let table = self.table
        return try await run { connection throws(FirestoreError) in
            try SQLiteMirrorRows.resumePoint(shard: shard, table: table, on: connection)
        }
    }

    /// Every document of the table (not the tombstones), sorted by name byte for byte.
    /// - Complexity: O(n) rows read.
    public func documents() async throws -> [Document] {
        let table = self.table
        return try await run { connection throws(FirestoreError) in
            try SQLiteMirrorRows.documents(table: table, on: connection)
        }
    }

    /// Applies `batch` in one SQLite transaction: the fencing check, each change under the version guard, and the
    /// resume point of its shard; or nothing.
    /// - Throws: ``FeedSinkStaleGeneration`` (nothing changed); `FirestoreError` naming the file and table for a
    ///   batch without a read time, a document without an `updateTime`, or SQLite's failure (nothing changed).
    /// - Complexity: O(changes) statements.
    public func apply(_ batch: FeedSinkBatch) async throws {
        let table = self.table
        let outcome = try await run { connection throws(FirestoreError) in
            try SQLiteMirrorRows.apply(batch, table: table, on: connection)
        }
        switch outcome {
        case .committed(let applied, let ignored):
            counts.withLock {
                $0.batches += 1
                $0.applied += applied
                $0.ignored += ignored
            }
        case .refused(let stored):
            counts.withLock { $0.refused += 1 }
            throw FeedSinkStaleGeneration(
                sink: "SQLite mirror \(path) table \(table)", shard: batch.shard, generation: batch.generation,
                storedGeneration: stored)
        }
    }

    /// Deletes the tombstones of documents removed before `time` (say, `now` minus ``tombstoneHorizon``), in one
    /// transaction.
    /// - Returns: how many were deleted.
    public func pruneTombstones(removedBefore time: Timestamp) async throws(FirestoreError) -> Int {
        let table = self.table
        return try await run { connection throws(FirestoreError) in
            try SQLiteMirrorRows.pruneTombstones(removedBefore: time, table: table, on: connection)
        }
    }

    private func run<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws(FirestoreError) -> T
    ) async throws(FirestoreError) -> T {
        let box = connection
        return try await worker.run { () throws(FirestoreError) -> T in try body(box.connection) }
    }

    /// Opens (creating when missing) the file, turns on WAL mode and creates the tables that are missing; refuses a
    /// table of the same name with another shape.
    private static func connect(
        path: String, table: String, busyTimeout: Duration
    ) throws(FirestoreError) -> SQLiteConnection {
        let connection = try SQLiteConnection(
            path: path, create: true, label: "SQLite mirror", busyTimeout: busyTimeout)
        let mode = try connection.text("PRAGMA journal_mode = WAL", doing: "turning on WAL mode")
        guard mode?.lowercased() == "wal" else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "SQLite mirror \(path): SQLite refused WAL mode (journal mode \(mode ?? "unknown"))")
        }
        try connection.execute("PRAGMA synchronous = NORMAL", doing: "setting synchronous")
        try connection.transaction(doing: "creating the tables of \(table)") { () throws(FirestoreError) in
            for (name, sql) in SQLiteMirrorSchema.tables(table) {
                let statement = try connection.statement(
                    "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?")
                try statement.bind(1, text: name)
                let existing = try statement.step(doing: "reading the schema of \(name)") ? statement.text(0) : nil
                statement.reset()
                guard let existing else {
                    try connection.execute(sql, doing: "creating table \(name)")
                    continue
                }
                if name == table + "_resume", existing == SQLiteMirrorSchema.resumeTableBeforeLoadCursor(table) {
                    // A file from before the backfill: the one column it lacks is added, the rows kept.
                    try connection.execute(
                        SQLiteMirrorSchema.loadCursorMigration(table), doing: "adding load_cursor to \(name)")
                    continue
                }
                guard existing == sql else {
                    throw FirestoreError(
                        code: .failedPrecondition,
                        message:
                            "SQLite mirror \(path): table \(name) exists with another shape (\(existing.prefix(200))); "
                            + "refusing to write to it (choose another table name)")
                }
            }
        }
        return connection
    }
}
