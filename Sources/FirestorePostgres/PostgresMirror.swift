import FirestoreFeed
import FirestoreREST
import FirestoreWire
import Synchronization

/// A `FeedSink` in a PostgreSQL database (over the system `libpq`): a query's result mirrored into a table, one row
/// per document, with the feed's resume point and fencing token in the same transactions, so each change takes effect
/// exactly once in the database (see `FeedSink` for the rule, and <doc:MirroringToPostgreSQL> for a worked example).
///
/// - Tables (named after ``table``, default `documents`, in the connection's current schema; the shape is stable, so
///   build views and indexes on it):
///   `T (name text PRIMARY KEY, fields jsonb, create_time text, update_time text, read_time text)`, the documents,
///   their fields as REST `Value` JSON (nothing lost: int64 as strings, bytes in base64, timestamps to the
///   nanosecond, references, NaN, vectors); `T_tombstones (name, update_time, removed_at)`, the documents that left;
///   `T_resume (shard bigint, resume_token bytea, read_time, generation bigint, query, load_cursor)`. Times are
///   `text COLLATE "C"`, RFC 3339 in UTC with 9 fraction digits: lossless (a `timestamptz` keeps only microseconds,
///   Firestore's times have nanoseconds) and they sort as the times do; `update_time::timestamptz` converts one
///   (rounded to the microsecond). The database may hold other tables: yours to join with.
/// - Version guard: a document is written only when its `updateTime` is after the row's (`INSERT … ON CONFLICT (name)
///   DO UPDATE … WHERE T.update_time < EXCLUDED.update_time`) and its tombstone, if any, was left before the snapshot's
///   read time; a removal deletes the row and leaves a tombstone at the snapshot's read time, unless a snapshot after
///   it wrote the row (`read_time`) or it holds a version at or after it. A change delivered twice is a no-op, a late
///   one (from a snapshot before the tombstone) never brings a document back, and a document that left the result and
///   came back unchanged (a `limit` window) is written again.
/// - Fencing: each batch's transaction locks its shard's row of `T_resume` (`SELECT … FOR UPDATE`); a batch whose
///   generation is below the one stored is refused with `FeedSinkStaleGeneration`, changing nothing (counted in
///   ``statistics``).
/// - Round trips: six per batch whatever its size (`BEGIN`, the fence, one statement for its documents, one for its
///   removals, the resume point, `COMMIT`); the rows travel as one `jsonb` parameter, never in the SQL text.
/// - Loads: a batch of puts without a resume token (a backfill page) whose names the table holds nothing of (no row,
///   no tombstone in the range of its names) goes in by binary `COPY … FROM STDIN` instead, in the same transaction
///   with the fence and the resume point (five round trips): the version guard would have written each of its rows,
///   so the table ends the same. One over a name the table holds (or naming a document twice) is refused by the
///   primary key, rolled back whole, and goes the guarded way.
/// - Tombstones: kept until ``pruneTombstones(removedBefore:)``; ``tombstoneHorizon`` (7 days) is safe.
/// - Limits of `jsonb`: a string holding U+0000 cannot be stored (PostgreSQL refuses the batch, which is not applied);
///   `-0.0` reads back as `0.0` (`jsonb` numbers are `numeric`). Every other value round-trips exactly.
/// - Threads: libpq runs on a thread of the mirror's own (`BlockingExecutor`), never on a Swift concurrency thread;
///   one connection, one batch at a time. A connection lost between batches is opened again before the next.
public final class PostgresMirror: FeedSink {
    /// The server's URL (or key-value connection string) with its password replaced by `***`: what errors name.
    public let url: String
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
        /// Batches refused for a stale generation (`FeedSinkStaleGeneration`).
        public var refused = 0
        /// Statements sent to the server (round trips), the connection and its tables included.
        public var roundTrips = 0
    }

    /// The libpq connection, used only inside jobs of ``worker`` (one at a time, in order): that confinement is what
    /// makes the `@unchecked Sendable` sound.
    private final class ConnectionBox: @unchecked Sendable {
        let connection: PostgresConnection
        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    /// Connects to the database at `url` and creates the mirror's tables when missing.
    /// - Parameters:
    ///   - url: a libpq connection URL (`postgresql://user:password@host:5432/db`, or with a Unix socket
    ///     `postgresql:///db?host=/run/postgresql`) or key-value string (`host=… dbname=…`). Unless it says
    ///     otherwise, connecting gives up after 10 s (`connect_timeout`) and TCP keepalives find a vanished server
    ///     within about a minute.
    ///   - table: the documents' table, a plain lowercase identifier (the others are `table_tombstones` and
    ///     `table_resume`).
    /// - Throws: `FirestoreError` naming the server (password redacted): `.invalidArgument` when `table` is not a
    ///   plain lowercase identifier (a lowercase letter or `_`, then lowercase letters, digits or `_`, at most 48, not
    ///   starting with `pg_`) or `url` cannot be parsed; `.unavailable` when the server cannot be reached;
    ///   `.permissionDenied` when it refuses the credentials; `.failedPrecondition` when a table of its names has
    ///   another shape; the server's error otherwise.
    public init(url: String, table: String = "documents") async throws(FirestoreError) {
        try PostgresMirrorSchema.validate(table: table)
        self.url = PostgresConnection.redact(url)
        self.table = table
        let worker = BlockingExecutor(name: "postgres-mirror")
        self.worker = worker
        connection = try await worker.run { () throws(FirestoreError) -> ConnectionBox in
            let connection = try PostgresConnection(url: url)
            try PostgresMirrorSchema.create(table, on: connection)
            return ConnectionBox(connection)
        }
        let roundTrips = connection.connection.roundTrips
        counts.withLock { $0.roundTrips = roundTrips }
    }

    /// What the mirror did since it opened.
    public var statistics: Statistics { counts.withLock { $0 } }

    /// Where the feed of `shard` resumes, or `nil` when the mirror holds nothing for it.
    /// - Throws: `FirestoreError` naming the server and table (the server's error, or `.dataLoss` for a stored read
    ///   time that is not a time).
    public func resumePoint(shard: Int) async throws -> FeedSinkResumePoint? {
        let table = self.table
        return try await run { connection throws(FirestoreError) in
            try PostgresMirrorRows.resumePoint(shard: shard, table: table, on: connection)
        }
    }

    /// Every document of the table (not the tombstones), sorted by name byte for byte.
    /// - Throws: `FirestoreError` naming the server and table (the server's error, or `.dataLoss` for a row whose
    ///   fields or times cannot be read).
    /// - Complexity: O(n) rows read, in one result held in memory.
    public func documents() async throws -> [Document] {
        let table = self.table
        return try await run { connection throws(FirestoreError) in
            try PostgresMirrorRows.documents(table: table, on: connection)
        }
    }

    /// Applies `batch` in one PostgreSQL transaction: the fencing check, each change under the version guard, and the
    /// resume point of its shard; or nothing.
    /// - Throws: `FeedSinkStaleGeneration` (nothing changed); `FirestoreError` naming the server and table for a
    ///   batch without a read time or with a document without an `updateTime` (`.invalidArgument`), or the server's
    ///   failure with its message and SQLSTATE (nothing changed): `.unavailable` for a lost connection,
    ///   `.failedPrecondition` for a constraint or trigger of yours that refused a row, `.aborted` for a deadlock.
    /// - Complexity: six round trips (more only when a name comes twice in the batch, or a load page by `COPY` is
    ///   refused for a name the table holds: three more).
    public func apply(_ batch: FeedSinkBatch) async throws {
        let table = self.table
        let outcome = try await run { connection throws(FirestoreError) in
            try PostgresMirrorRows.apply(batch, table: table, on: connection)
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
                sink: "PostgreSQL mirror \(url) table \(table)", shard: batch.shard, generation: batch.generation,
                storedGeneration: stored)
        }
    }

    /// Deletes the tombstones of documents removed before `time` (say, `now` minus ``tombstoneHorizon``), in one
    /// statement.
    /// - Returns: how many were deleted.
    /// - Throws: `FirestoreError` naming the server and table (the server's error).
    public func pruneTombstones(removedBefore time: Timestamp) async throws(FirestoreError) -> Int {
        let table = self.table
        return try await run { connection throws(FirestoreError) in
            try PostgresMirrorRows.pruneTombstones(removedBefore: time, table: table, on: connection)
        }
    }

    /// Runs `body` on the mirror's thread with its connection (connected again first if it was lost), then notes
    /// the round trips.
    private func run<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws(FirestoreError) -> T
    ) async throws(FirestoreError) -> T {
        let box = connection
        return try await worker.run { [self] () throws(FirestoreError) -> T in
            let connection = box.connection
            defer { counts.withLock { $0.roundTrips = connection.roundTrips } }
            guard connection.reconnectIfNeeded() else {
                throw FirestoreError(
                    code: .unavailable,
                    message: "PostgreSQL mirror \(connection.place): the connection was lost and "
                        + "cannot be opened again")
            }
            return try body(connection)
        }
    }
}
