import FirestoreFeed
import FirestoreREST

/// Where `mirror` writes: one sink option (`--sqlite FILE [--table NAME]`), opened as a ``FeedSink``. A new sink (say
/// `--postgres URL`) is one more case, its options, and its `open()`.
enum MirrorSinkOptions: Sendable {
    /// `--sqlite FILE [--table NAME]`: an ``SQLiteMirror``.
    case sqlite(path: String, table: String)

    static let options: [OptionSpec] = [
        .value(
            "--sqlite", "FILE",
            help: """
                mirror into the SQLite file FILE (created when missing): one
                row per document, with the feed's resume point in the same
                transactions (required)
                """),
        .value("--table", "NAME", help: "the documents' table (default documents; also NAME_tombstones, NAME_resume)"),
    ]

    /// The sink the options name.
    /// - Throws: ``ValidationError`` without a sink option, or for an empty file or table name.
    init(parsing reader: ArgumentReader) throws(ValidationError) {
        guard let path = reader.value("--sqlite") else {
            throw ValidationError("mirror needs a sink: --sqlite FILE")
        }
        if path.isEmpty { throw ValidationError("--sqlite needs a file name") }
        let table = reader.value("--table") ?? "documents"
        if table.isEmpty { throw ValidationError("--table needs a name") }
        self = .sqlite(path: path, table: table)
    }

    /// Opens the sink (creating its file and tables when missing).
    /// - Throws: the sink's error (a table of another shape, a file that is not a database).
    func open() async throws -> any FeedSink {
        switch self {
        case .sqlite(let path, let table): try await SQLiteMirror(path: path, table: table)
        }
    }

    /// The sink in a line (`SQLite file mirror.db, table documents`).
    var description: String {
        switch self {
        case .sqlite(let path, let table): "SQLite file \(path), table \(table)"
        }
    }
}
