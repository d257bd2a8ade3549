import FirestoreREST

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening a checkpoint store's file: creating it when missing, and refusing one that this library cannot read
/// exactly, before anything is read from it. On the store's executor (`BlockingExecutor`) (blocking file I/O).
///
/// - A missing file is created whole: the schema is written to a new temporary file beside it (created with
///   `O_CREAT | O_EXCL | O_NOFOLLOW`, so no planted link or file is written through), which is then linked into
///   place, so a crash never leaves a half-made store (and an empty file is never one of ours).
/// - The file is only ever opened by SQLite: a descriptor of our own on it, closed, would drop the POSIX locks
///   another SQLite connection of this process holds on the file (https://www.sqlite.org/howtocorrupt.html,
///   section 2.2). An empty file and one that is not a regular file are refused after a `stat`; SQLite itself says
///   when a file is not a database.
/// - Refused with `FirestoreError` `.dataLoss`, naming the file: an empty file, one that is not an SQLite
///   database, an SQLite database of another application (`PRAGMA application_id`), and one that fails
///   ``CheckpointIntegrity`` (a truncated or corrupted file).
/// - Refused with `.failedPrecondition`: a store whose schema version (`PRAGMA user_version`) is not this
///   library's (written by a newer version, which may store what this one would misread).
/// - Then: WAL journal mode (readers never block the writer; https://www.sqlite.org/wal.html) with
///   `synchronous = NORMAL`: a commit survives the process being killed at any moment; a power loss may undo the
///   last commits, which only delivers their changes again (at least once), never skips them.
enum CheckpointFile {
    /// Opens (creating when missing) the store at `path`.
    static func connect(path: String) throws(FirestoreError) -> SQLiteConnection {
        if !exists(path) { try create(path) }
        try checkKind(path)
        let connection = try SQLiteConnection(path: path)
        let application = try connection.integer("PRAGMA application_id", doing: "reading the application ID")
        guard application == CheckpointSchema.applicationID else {
            throw FirestoreError(
                code: .dataLoss,
                message: "checkpoint store \(path): an SQLite database of another application (application_id "
                    + "\(application)), not a FirestoreFeed checkpoint store; refusing to use it")
        }
        let version = try connection.integer("PRAGMA user_version", doing: "reading the schema version")
        guard version == CheckpointSchema.version else {
            let which = version > CheckpointSchema.version ? "a newer version of FirestoreFeed" : "an unknown version"
            throw FirestoreError(
                code: .failedPrecondition,
                message: "checkpoint store \(path): written by \(which) (schema version \(version); this library "
                    + "reads version \(CheckpointSchema.version)); refusing to read it")
        }
        try CheckpointIntegrity.check(connection)
        let mode = try connection.text("PRAGMA journal_mode = WAL", doing: "turning on WAL mode")
        guard mode?.lowercased() == "wal" else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "checkpoint store \(path): SQLite refused WAL mode (journal mode \(mode ?? "unknown"))")
        }
        try connection.execute("PRAGMA synchronous = NORMAL", doing: "setting synchronous")
        return connection
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Writes a new store at a temporary path beside `path` and links it into place (another process that
    /// created `path` first wins; its store is used).
    private static func create(_ path: String) throws(FirestoreError) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "checkpoint store \(path): no folder \(folder) (create it first)")
        }
        let temporary = path + ".new-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        do {
            close(try SideFile.createNew(temporary, mode: 0o644))
        } catch {
            throw FirestoreError(
                code: .permissionDenied,
                message: "checkpoint store \(path): cannot create the temporary file \(temporary): \(error.reason)")
        }
        do {
            // The file is ours and empty (an empty database to SQLite); a link put in its place is not followed.
            let connection = try SQLiteConnection(path: temporary, followLinks: false)
            try connection.execute("PRAGMA journal_mode = WAL", doing: "turning on WAL mode")
            try connection.transaction(doing: "creating the schema") { () throws(FirestoreError) in
                try connection.execute(CheckpointSchema.create, doing: "creating the schema")
            }
        } catch {
            removeTemporary(temporary)
            throw FirestoreError(code: error.code, message: error.message.replacing(temporary, with: path))
        }
        // The connection is closed: SQLite folded its WAL into the file and removed the side files.
        if link(temporary, path) != 0, errno != EEXIST {
            // A file system without hard links: rename (which a racing creator's store would lose to).
            if !exists(path), rename(temporary, path) != 0 {
                let reason = String(cString: strerror(errno))
                removeTemporary(temporary)
                throw FirestoreError(
                    code: .permissionDenied, message: "checkpoint store \(path): cannot create the file: \(reason)")
            }
        }
        removeTemporary(temporary)
    }

    private static func removeTemporary(_ temporary: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
    }

    /// Refuses an empty file and one that is not a regular file (a folder, a FIFO SQLite would wait on), from a
    /// `stat` (which opens nothing). Whether the file is an SQLite database SQLite says when it first reads it.
    private static func checkKind(_ path: String) throws(FirestoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw FirestoreError(code: .permissionDenied, message: "checkpoint store \(path): cannot open: \(reason)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "checkpoint store \(path): not a regular file; refusing to use it")
        }
        if info.st_size == 0 {
            throw FirestoreError(
                code: .dataLoss,
                message: "checkpoint store \(path): the file is empty (truncated?), not a checkpoint store; "
                    + "refusing to use it (delete it to start from nothing)")
        }
    }
}
