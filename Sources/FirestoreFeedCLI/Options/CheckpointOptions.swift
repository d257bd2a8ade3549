/// `watch --checkpoint FILE` and `--checkpoint-key KEY`: the feed's state kept in a SQLite file, so a restarted
/// watch prints only what changed meanwhile.
struct CheckpointOptions: Sendable {
    static let options: [OptionSpec] = [
        .value(
            "--checkpoint", "FILE",
            help: """
                keep the feed's state in the SQLite file FILE (created when
                missing): after a restart the first snapshot lists only what
                changed meanwhile; each snapshot is written once printed, so
                none is ever skipped (one printed before a crash may come again)
                """),
        .value(
            "--checkpoint-key", "KEY",
            help: "the checkpoint's key in FILE (default: the query itself); one watch per key"),
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
}
