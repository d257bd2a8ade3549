import FirestoreFeed

/// `firestore-feed watch COLLECTION_PATH`: listens to a query (or polls it) and prints each snapshot that has
/// changes.
package struct WatchCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "watch",
        usage: ["COLLECTION_PATH [options]"],
        summary: "watch a query and print each snapshot's changes",
        abstract: "Watches a query and prints every snapshot that has changes (the first one always).",
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + [
            .value(
                "--interval", "SECONDS",
                help: "time between polls with --mode keys|full|delta or after a fallback (default 1)"),
            .value("--count", "N", help: "exit 0 after printing N snapshots"),
        ] + FeedModeOptions.options + [
            .flag(
                "--verbose",
                help: "print every poll's statistics and billed reads (listen: each snapshot's) to stderr"),
            OutputFormat.option(
                help: """
                    output format (default text); jsonl prints one line per snapshot:
                    {"changes":[{"data","id","newIndex","oldIndex","path","type"}],
                     "readTime","size"} (and "resumed":true on the first snapshot
                     after a restart with --checkpoint)
                    """),
        ] + CheckpointOptions.options + GroupOptions.options + [FailureLimit.option])

    let query: QueryOptions
    /// `--interval`: between polls, 1 s by default.
    let interval: Duration
    /// `--count N`: the snapshots to print before exiting 0; `nil` for no end.
    let count: Int?
    let mode: FeedModeOptions
    let verbose: Bool
    let failureLimit: FailureLimit
    let format: OutputFormat
    let checkpoint: CheckpointOptions
    let group: GroupOptions
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        query = try QueryOptions(parsing: reader, command: "watch")
        interval = try reader.seconds("--interval", in: 0.01...86_400) ?? .seconds(1)
        count = try reader.positiveInteger("--count")
        mode = try FeedModeOptions(parsing: reader)
        verbose = reader.has("--verbose")
        failureLimit = try FailureLimit(parsing: reader)
        format = try OutputFormat(parsing: reader)
        checkpoint = CheckpointOptions(parsing: reader)
        group = try GroupOptions(parsing: reader)
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try mode.validate()
        try checkpoint.validate()
        try group.validate(mode: mode, checkpoint: checkpoint)
        try query.validate()
        try connection.validate()
    }
}
