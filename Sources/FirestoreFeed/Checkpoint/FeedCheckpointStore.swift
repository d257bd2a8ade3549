import FirestoreREST
import Synchronization

/// A durable store of change-feed checkpoints: one SQLite file (the system `libsqlite3`) holding, per key, the last
/// snapshot a feed's consumer finished with, so that a restarted process resumes where it left off. Give it to
/// `query.snapshots(..., checkpoint: store, key: "orders")`; the CLI's `watch --checkpoint FILE` uses one too.
///
/// - What is stored per key: the snapshot's documents (name, `updateTime`, fields), its `readTime`, the delta
///   watermark and last keys scan of delta polling, and for a Listen feed the resume token. Each snapshot is
///   written in one SQLite transaction of O(changed documents) rows: the documents its changes touched and one
///   row for the key (`lastCommitRowsWritten`, for tests).
/// - File: WAL journal mode; `PRAGMA application_id` "FFCP" and the schema version in `PRAGMA user_version`. A file
///   written by a newer version of this library is refused (`.failedPrecondition`); an empty, foreign, truncated
///   or corrupted file (SQLite's `PRAGMA integrity_check` at open, the schema compared with this version's), a row
///   whose checksum fails, and a key whose feed row may be in the file but cannot be read, are refused with
///   `.dataLoss`: every error names the file, and none is ever misread or read as "no checkpoint"
///   (https://www.sqlite.org/pragma.html, `application_id`, `user_version`, `integrity_check`;
///   `FeedCheckpointStoreTests`, `CheckpointBitFlipTests`: each single-bit flip of a small store is refused or
///   read exactly).
/// - One feed per key: a feed holds its key exclusively while it runs (an `flock` on a side file,
///   `FILE-lock-<hash of the key>`, released by the kernel when the process ends, even by SIGKILL). A second feed
///   on the same key, in this process or another, ends at once with `.failedPrecondition` naming the key, the
///   file and the holder's process ID. Feeds on other keys share the file freely, across processes too. The side
///   file must be a regular file of the user's own (mode `0600` when new): a link or anything else planted at its
///   name is refused with `.permissionDenied`, never written through.
/// - Threads: SQLite runs on a thread of the store's own (executor (`BlockingExecutor`)), never on a Swift concurrency
///   thread; every method is `async`.
public final class FeedCheckpointStore: Sendable {
    /// The database file.
    public let path: String
    let worker: BlockingExecutor
    private let connection: ConnectionBox
    private let lastCommit = Mutex<(rows: Int, statements: Int)>((0, 0))
    /// The feeds running on this store, by key, for ``acknowledge(key:)``.
    private let feeds = Mutex<[String: WeakFeed]>([:])

    /// The SQLite connection, used only inside jobs of ``worker`` (one at a time, in order): that confinement is
    /// what makes the `@unchecked Sendable` sound.
    private final class ConnectionBox: @unchecked Sendable {
        let connection: SQLiteConnection
        init(_ connection: SQLiteConnection) { self.connection = connection }
    }

    private struct WeakFeed {
        weak var feed: CheckpointedFeed?
    }

    /// Opens the store at `path`, creating it (with its schema) when the file does not exist.
    /// - Throws: `FirestoreError` naming the file: `.dataLoss` for an empty, foreign, truncated or corrupted
    ///   file; `.failedPrecondition` for a store of another schema version (a newer library's), a path that is not a
    ///   regular file or a folder that does not exist; `.permissionDenied` when the file cannot be opened or created.
    /// - Complexity: O(file size) (`PRAGMA integrity_check`: about 12 ms for a 12 MB store).
    public init(path: String) async throws(FirestoreError) {
        self.path = path
        let worker = BlockingExecutor(name: "checkpoints")
        self.worker = worker
        let connection = try await worker.run { () throws(FirestoreError) -> ConnectionBox in
            ConnectionBox(try CheckpointFile.connect(path: path))
        }
        self.connection = connection
    }

    /// The schema version this library reads and writes (`PRAGMA user_version` of its files).
    package static var schemaVersion: Int { Int(CheckpointSchema.version) }

    /// The checkpoint of `key`, or `nil` when there is none: the rows of one commit, read in one SQLite read
    /// transaction, so a feed writing the key meanwhile (through another store, in this process or another) is
    /// seen wholly before or wholly after its commit (https://www.sqlite.org/isolation.html;
    /// `CheckpointConcurrentReadTests`).
    /// - Throws: `FirestoreError` `.dataLoss` naming the file and key when its rows are damaged, or when the key has
    ///   no readable feed row but the file may hold one (a feed row that fails its checksum, document rows of the
    ///   key): a damaged store is refused, never read as holding no checkpoint.
    /// - Complexity: O(n + k) for n stored documents and k keys.
    public func checkpoint(key: String) async throws(FirestoreError) -> FeedCheckpoint? {
        try await run { connection throws(FirestoreError) in try CheckpointRows.load(key: key, from: connection) }
    }

    /// Every key with a checkpoint, sorted by their UTF-8 bytes.
    /// - Throws: `FirestoreError` `.dataLoss` naming the file when a feed row fails its checksum.
    /// - Complexity: O(k log k) for k keys.
    public func keys() async throws(FirestoreError) -> [String] {
        try await run { connection throws(FirestoreError) in try CheckpointRows.keys(in: connection) }
    }

    /// Deletes the checkpoint of `key` (the next feed on it starts from nothing).
    /// - Throws: `FirestoreError` `.failedPrecondition` when a feed holds the key; `.permissionDenied` when its
    ///   lock file cannot be used (see the type's notes).
    public func removeCheckpoint(key: String) async throws(FirestoreError) {
        let path = self.path
        try await run { connection throws(FirestoreError) in
            let lock = try CheckpointKeyLock(storePath: path, key: key)
            defer { lock.release() }
            try CheckpointRows.remove(key: key, from: connection)
        }
    }

    /// Marks the last snapshot the feed on `key` delivered as finished with: it is written now, so a restart
    /// resumes after it. The feed's iterator does the same when asked for the next snapshot, so calling this is
    /// needed only to checkpoint before that (say, before a long pause, or before leaving the loop). Idempotent.
    /// - Throws: `FirestoreError` `.failedPrecondition` when no feed of this store runs on `key`; the write's
    ///   error (the feed then ends with it too).
    public func acknowledge(key: String) async throws(FirestoreError) {
        guard let feed = feeds.withLock({ $0[key]?.feed }) else {
            throw FirestoreError(
                code: .failedPrecondition, message: "checkpoint store \(path): no feed runs on key \"\(key)\"")
        }
        try await feed.acknowledge()
    }

    /// Rows inserted, updated or deleted by the last snapshot written: the documents its changes touched plus
    /// the key's row (O(changed documents), whatever the snapshot's size).
    package var lastCommitRowsWritten: Int { lastCommit.withLock { $0.rows } }

    /// SQL statements the last snapshot written ran (`BEGIN`, the generation check, one per changed document, the
    /// key's row, `COMMIT`).
    package var lastCommitStatements: Int { lastCommit.withLock { $0.statements } }

    // MARK: For feeds

    /// Runs `body` with the connection on the store's thread.
    func run<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws(FirestoreError) -> T
    ) async throws(FirestoreError) -> T {
        let box = connection
        return try await worker.run { () throws(FirestoreError) -> T in try body(box.connection) }
    }

    /// Takes `key` for `feed` and loads its checkpoint: the lock first, then the rows.
    func open(key: String, for feed: CheckpointedFeed) async throws(FirestoreError) -> (
        CheckpointKeyLock, FeedCheckpoint?
    ) {
        let path = self.path
        let opened = try await run { connection throws(FirestoreError) -> LockedCheckpoint in
            let lock = try CheckpointKeyLock(storePath: path, key: key)
            do throws(FirestoreError) {
                return LockedCheckpoint(lock: lock, checkpoint: try CheckpointRows.load(key: key, from: connection))
            } catch {
                lock.release()
                throw error
            }
        }
        feeds.withLock { $0[key] = WeakFeed(feed: feed) }
        return (opened.lock, opened.checkpoint)
    }

    /// Writes `commit` on top of the feed's last write: at the generation `chain` expects, unless an earlier write
    /// of the chain failed (that failure is thrown, nothing is written).
    func write(_ commit: CheckpointCommit, chain: CheckpointChain) async throws(FirestoreError) {
        try await run { [self] connection throws(FirestoreError) in
            let expected = try chain.check()
            let rowsBefore = connection.rowsChanged
            let statementsBefore = connection.statementsRun
            do throws(FirestoreError) {
                let generation = try CheckpointRows.write(
                    commit, expectedGeneration: expected, committedAt: .now(), to: connection)
                chain.advance(to: generation)
            } catch {
                chain.fail(error)
                throw error
            }
            lastCommit.withLock {
                $0 = (Int(connection.rowsChanged - rowsBefore), connection.statementsRun - statementsBefore)
            }
        }
    }

    /// Releases `lock` after every write queued before, then forgets the feed.
    func close(key: String, lock: CheckpointKeyLock, for feed: CheckpointedFeed) async {
        _ = try? await worker.run { () throws(FirestoreError) in lock.release() }
        feeds.withLock { feeds in
            if feeds[key]?.feed === feed || feeds[key]?.feed == nil { feeds[key] = nil }
        }
    }

    /// The side file whose `flock` holds `key` (``CheckpointKeyLock``), for tests that plant something there.
    package func lockPath(key: String) -> String { CheckpointKeyLock.path(storePath: path, key: key) }

    /// Whether a feed of this store holds `key` (for tests that wait for a feed to end).
    package func isFeedRunning(key: String) -> Bool { feeds.withLock { $0[key]?.feed != nil } }

    private struct LockedCheckpoint: Sendable {
        let lock: CheckpointKeyLock
        let checkpoint: FeedCheckpoint?
    }
}
