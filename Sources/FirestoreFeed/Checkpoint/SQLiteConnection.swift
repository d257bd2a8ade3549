internal import CSQLite
import FirestoreREST

/// One connection to an SQLite database file (the system `libsqlite3`), with prepared statements cached by their
/// text. Not thread-safe and not `Sendable`: a ``FeedCheckpointStore`` uses its connection only from the jobs of
/// its executor (`BlockingExecutor`), one at a time, never on a Swift concurrency thread (every call may wait on the disk,
/// and on another process's write lock up to the busy timeout).
///
/// Every failure is a `FirestoreError` naming the file, what was being done, and SQLite's own message and code
/// (https://www.sqlite.org/rescode.html): a corrupt or foreign file (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) is
/// `.dataLoss`; a write lock held past the busy timeout (`SQLITE_BUSY`) `.unavailable`; a full disk
/// `.resourceExhausted`; a file that cannot be opened or written `.permissionDenied`; anything else `.internal`.
final class SQLiteConnection {
    /// The database file.
    let path: String
    /// What the file is, for errors: "checkpoint store" or "SQLite mirror".
    let label: String
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// How many statements were run (each execution of a prepared statement, each `execute`): what the
    /// O(changed documents) checkpoint writes are counted with.
    private(set) var statementsRun = 0

    /// Opens the existing file `path` read-write and sets the busy timeout.
    /// - Parameters:
    ///   - followLinks: `false` refuses a `path` that is a symbolic link (`SQLITE_OPEN_NOFOLLOW`).
    ///   - create: `true` creates the file when it does not exist (`SQLITE_OPEN_CREATE`).
    ///   - label: what the file is, named in every error.
    /// - Throws: `FirestoreError` when SQLite cannot open the file.
    init(
        path: String, followLinks: Bool = true, create: Bool = false, label: String = "checkpoint store",
        busyTimeout: Duration = .seconds(10)
    ) throws(FirestoreError) {
        self.path = path
        self.label = label
        var handle: OpaquePointer?
        let flags =
            SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
            | (followLinks ? 0 : SQLITE_OPEN_NOFOLLOW) | (create ? SQLITE_OPEN_CREATE : 0)
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open"
            if let handle { sqlite3_close_v2(handle) }
            throw Self.error(status, message: message, path: path, doing: "opening the file", label: label)
        }
        self.handle = handle
        let (seconds, attoseconds) = busyTimeout.components
        sqlite3_busy_timeout(handle, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    deinit {
        statements = [:]
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` (one or more statements without parameters or results, e.g. the schema).
    func execute(_ sql: String, doing: String) throws(FirestoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        let text = message.map { String(cString: $0) }
        sqlite3_free(message)
        guard status == SQLITE_OK else {
            throw Self.error(status, message: text ?? lastMessage, path: path, doing: doing, label: label)
        }
        statementsRun += 1
    }

    /// The cached statement for `sql`, reset and with its bindings cleared.
    func statement(_ sql: String) throws(FirestoreError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard status == SQLITE_OK, let raw else {
            throw Self.error(
                status, message: lastMessage, path: path, doing: "preparing \(sql.prefix(60))", label: label)
        }
        let statement = SQLiteStatement(raw, connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// The single text value `sql` returns (a `PRAGMA` read), or `nil` for no row or `NULL`.
    func text(_ sql: String, doing: String) throws(FirestoreError) -> String? {
        let statement = try statement(sql)
        defer { statement.reset() }
        guard try statement.step(doing: doing) else { return nil }
        return statement.text(0)
    }

    /// Every row `sql` returns, each column as text (`NULL` as empty text).
    func rows(_ sql: String, doing: String) throws(FirestoreError) -> [[String]] {
        let statement = try statement(sql)
        defer { statement.reset() }
        var rows: [[String]] = []
        while try statement.step(doing: doing) {
            rows.append((0..<statement.columnCount).map { statement.text($0) ?? "" })
        }
        return rows
    }

    /// The single integer `sql` returns (a `PRAGMA` read), 0 for no row.
    func integer(_ sql: String, doing: String) throws(FirestoreError) -> Int64 {
        let statement = try statement(sql)
        defer { statement.reset() }
        guard try statement.step(doing: doing) else { return 0 }
        return statement.integer(0)
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction (the write lock is taken at once, so a concurrent writer
    /// waits in the busy timeout rather than failing at commit); rolls back when `body` throws.
    func transaction<T>(doing: String, _ body: () throws(FirestoreError) -> T) throws(FirestoreError) -> T {
        try inTransaction(begin: "BEGIN IMMEDIATE", doing: doing, body)
    }

    /// Runs `body` in one read transaction (`BEGIN DEFERRED`: no lock until the first read, and never the write
    /// lock): every statement of `body` reads the same snapshot of the file, so a commit by another connection
    /// (another store on the file, another process) lands wholly before or wholly after it, never between two of
    /// its statements (https://www.sqlite.org/isolation.html: in WAL mode a reader sees the database as of the
    /// start of its read transaction). Ends with `COMMIT`, or `ROLLBACK` when `body` throws.
    func readTransaction<T>(doing: String, _ body: () throws(FirestoreError) -> T) throws(FirestoreError) -> T {
        try inTransaction(begin: "BEGIN DEFERRED", doing: doing, body)
    }

    /// `begin`, `body`, then `COMMIT`; `ROLLBACK` when `body` or the commit throws.
    private func inTransaction<T>(
        begin: String, doing: String, _ body: () throws(FirestoreError) -> T
    ) throws(FirestoreError) -> T {
        try execute(begin, doing: doing)
        do {
            let result = try body()
            try execute("COMMIT", doing: doing)
            return result
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    func noteStatementRun() { statementsRun += 1 }

    /// Rows inserted, updated or deleted through this connection since it opened (`sqlite3_total_changes64`).
    var rowsChanged: Int64 { sqlite3_total_changes64(handle) }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// The `FirestoreError` for SQLite result code `status`.
    static func error(
        _ status: Int32, message: String, path: String, doing: String, label: String = "checkpoint store"
    ) -> FirestoreError {
        let primary = status & 0xff
        let code: FirestoreError.Code
        switch primary {
        case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_FORMAT: code = .dataLoss
        case SQLITE_BUSY, SQLITE_LOCKED: code = .unavailable
        case SQLITE_FULL: code = .resourceExhausted
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH: code = .permissionDenied
        default: code = .internal
        }
        if primary == SQLITE_NOTADB {
            return FirestoreError(
                code: code,
                message: "\(label) \(path): not an SQLite database (\(doing): \(message)); refusing to use it")
        }
        let damaged = code == .dataLoss ? "the file is damaged (truncated or corrupted): " : ""
        return FirestoreError(
            code: code,
            message: "\(label) \(path): \(damaged)\(doing): \(message) (SQLite result code \(status))")
    }
}

/// A prepared statement of one ``SQLiteConnection``: bind by 1-based index, step, read columns by 0-based index.
final class SQLiteStatement {
    private let raw: OpaquePointer
    private unowned let connection: SQLiteConnection
    let sql: String
    /// Whether the statement has not been stepped since its last reset.
    private var isFresh = true

    init(_ raw: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.raw = raw
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(raw) }

    /// Resets the statement and clears its bindings.
    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
        isFresh = true
    }

    func bind(_ index: Int32, text: String?) throws(FirestoreError) {
        guard let text else { return try check(sqlite3_bind_null(raw, index)) }
        let status = text.utf8CString.withUnsafeBufferPointer { buffer in
            csqlite_bind_text(raw, index, buffer.baseAddress, Int32(clamping: buffer.count - 1))
        }
        try check(status)
    }

    func bind(_ index: Int32, blob: [UInt8]?) throws(FirestoreError) {
        guard let blob else { return try check(sqlite3_bind_null(raw, index)) }
        let status = blob.withUnsafeBytes { buffer in
            csqlite_bind_blob(raw, index, buffer.baseAddress, Int32(clamping: buffer.count))
        }
        try check(status)
    }

    func bind(_ index: Int32, integer: Int64) throws(FirestoreError) {
        try check(sqlite3_bind_int64(raw, index, integer))
    }

    /// Steps once: `true` with a row to read, `false` when done.
    func step(doing: String) throws(FirestoreError) -> Bool {
        if isFresh {
            isFresh = false
            connection.noteStatementRun()
        }
        let status = sqlite3_step(raw)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = connection.lastMessage
            sqlite3_reset(raw)
            throw SQLiteConnection.error(
                status, message: message, path: connection.path, doing: doing, label: connection.label)
        }
    }

    /// Steps a statement that returns no row.
    func run(doing: String) throws(FirestoreError) {
        while try step(doing: doing) {}
    }

    /// How many columns a row of the statement has.
    var columnCount: Int32 { sqlite3_column_count(raw) }

    /// Whether column `index` is `NULL`.
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(raw, index) == SQLITE_NULL }

    /// Column `index` as text (UTF-8 bytes as stored, invalid sequences repaired), `nil` for `NULL`.
    func text(_ index: Int32) -> String? {
        guard !isNull(index), let bytes = sqlite3_column_text(raw, index) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` as raw bytes (a text column's UTF-8 bytes too), `nil` for `NULL`.
    func bytes(_ index: Int32) -> [UInt8]? {
        guard !isNull(index) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, index))
        guard count > 0, let pointer = sqlite3_column_blob(raw, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(raw, index) }

    private func check(_ status: Int32) throws(FirestoreError) {
        guard status == SQLITE_OK else {
            throw SQLiteConnection.error(
                status, message: connection.lastMessage, path: connection.path, doing: "binding \(sql.prefix(60))",
                label: connection.label)
        }
    }
}
