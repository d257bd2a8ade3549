import FirestoreFeed
import FirestoreREST

/// `watch --checkpoint FILE` and `--checkpoint-key KEY`: the feed's state kept in a SQLite file, so a restarted
/// watch prints only what changed meanwhile.
struct CheckpointOptions: Sendable {
    static let options: [OptionSpec] = [
        .value(
            "--checkpoint", "FILE",
            help: """
                keep the feed's state in the SQLite file FILE (created when
                missing): after a restart the first snapshot lists only what
                changed meanwhile; each snapshot is written once handled
                (printed, published), so none is ever skipped (one handled
                before a crash may come again)
                """),
        .value(
            "--checkpoint-key", "KEY",
            help: "the checkpoint's key in FILE (default: the query itself); one feed per key"),
    ]

    /// `--checkpoint FILE` as given.
    let path: String?
    /// `--checkpoint-key KEY` as given.
    let key: String?

    init(parsing reader: ArgumentReader) {
        path = reader.value("--checkpoint")
        key = reader.value("--checkpoint-key")
    }

    /// - Throws: ``ValidationError`` for a key without a file, an empty file name or an empty key.
    func validate() throws(ValidationError) {
        if path == nil, key != nil { throw ValidationError("--checkpoint-key needs --checkpoint FILE") }
        if path == "" { throw ValidationError("--checkpoint needs a file name") }
        if key == "" { throw ValidationError("--checkpoint-key needs a key") }
    }

    /// The key `query`'s checkpoint is kept under: `--checkpoint-key`, else the query itself
    /// (``QueryIdentity``).
    /// - Throws: ``CLIError/usage(_:)`` when the query cannot be encoded.
    func key(for query: Query) throws(CLIError) -> String {
        if let key { return key }
        do {
            return try QueryIdentity(query).description
        } catch {
            throw .usage(error.message)
        }
    }

    /// The store, opened (a damaged or newer file is an error at once), or `nil` without `--checkpoint`.
    /// - Throws: the store's error.
    func openStore() async throws -> FeedCheckpointStore? {
        guard let path else { return nil }
        return try await FeedCheckpointStore(path: path)
    }
}
