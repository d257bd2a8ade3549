import FirestoreFeed
import FirestorePostgres
import FirestoreREST

/// Where `mirror` writes: exactly one sink option (`--sqlite FILE` or `--postgres URL`, with `--table NAME`), opened
/// as a ``FeedSink``. A new sink is one more case, its option, and its `open()`.
enum MirrorSinkOptions: Sendable {
    /// `--sqlite FILE [--table NAME] [--busy-timeout SECONDS]`: an ``SQLiteMirror``.
    case sqlite(path: String, table: String, busyTimeout: Duration)
    /// `--postgres URL [--table NAME]`: a `PostgresMirror` (the URL as given: only ``description`` and errors show
    /// it, with its password redacted).
    case postgres(url: String, table: String)

    static let options: [OptionSpec] = [
        .value(
            "--sqlite", "FILE",
            help: """
                mirror into the SQLite file FILE (created when missing): one
                row per document, with the feed's resume point in the same
                transactions (this or --postgres)
                """),
        .value(
            "--postgres", "URL",
            help: """
                mirror into the PostgreSQL database of the libpq URL
                (postgresql://user:password@host/db; tables made when
                missing); messages show it with its password as ***
                """),
        .value("--table", "NAME", help: "the documents' table (default documents; also NAME_tombstones, NAME_resume)"),
        .value(
            "--busy-timeout", "SECONDS",
            help: """
                with --sqlite: how long a transaction waits for the file's
                write lock while another writer holds it (default 10; raise
                it when a group's members share the file)
                """),
    ]

    /// The sink the options name.
    /// - Throws: ``ValidationError`` without a sink option or with both, for an empty file, URL or table name, or for
    ///   `--busy-timeout` without `--sqlite` or out of 0.001...86400 seconds.
    init(parsing reader: ArgumentReader) throws(ValidationError) {
        let path = reader.value("--sqlite")
        let url = reader.value("--postgres")
        let table = reader.value("--table") ?? "documents"
        if table.isEmpty { throw ValidationError("--table needs a name") }
        let busyTimeout = try reader.seconds("--busy-timeout", in: 0.001...86_400)
        if busyTimeout != nil, path == nil { throw ValidationError("--busy-timeout is an option of --sqlite") }
        switch (path, url) {
        case (nil, nil):
            throw ValidationError("mirror needs a sink: --sqlite FILE or --postgres URL")
        case (.some, .some):
            throw ValidationError("mirror writes to one sink: --sqlite or --postgres, not both")
        case (let path?, nil):
            if path.isEmpty { throw ValidationError("--sqlite needs a file name") }
            self = .sqlite(path: path, table: table, busyTimeout: busyTimeout ?? SQLiteMirror.defaultBusyTimeout)
        case (nil, let url?):
            if url.isEmpty { throw ValidationError("--postgres needs a connection URL") }
            self = .postgres(url: url, table: table)
        }
    }

    /// Opens the sink (creating its file and tables when missing).
    /// - Throws: the sink's error (a table of another shape, a file that is not a database, a server that cannot be
    ///   reached: named with the URL's password redacted).
    func open() async throws -> any FeedSink {
        switch self {
        case .sqlite(let path, let table, let busyTimeout):
            try await SQLiteMirror(path: path, table: table, busyTimeout: busyTimeout)
        case .postgres(let url, let table): try await PostgresMirror(url: url, table: table)
        }
    }

    /// The sink in a line (`SQLite file mirror.db, table documents`; `PostgreSQL postgresql://u:***@host/db, table
    /// documents`).
    var description: String {
        switch self {
        case .sqlite(let path, let table, _): "SQLite file \(path), table \(table)"
        case .postgres(let url, let table): "PostgreSQL \(PostgresConnection.redact(url)), table \(table)"
        }
    }
}
