import FirestoreFeed
import FirestoreREST
import Synchronization

/// `firestore-feed watch COLLECTION_PATH`: listens to a query (or polls it) and prints each snapshot that has
/// changes.
package struct WatchCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "watch",
        usage: ["COLLECTION_PATH [options]"],
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
        ] + CheckpointOptions.options + [FailureLimit.option])

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
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try mode.validate()
        try checkpoint.validate()
        try query.validate()
        try connection.validate()
    }

    package func run() async throws(CLIError) {
        let firestore = try await connection.makeClient()
        let watched = query.query(on: firestore)
        do {
            _ = try watched.structuredQuery()
        } catch {
            throw .usage(error.message)
        }
        var checkpointKey = checkpoint.key ?? ""
        if checkpointKey.isEmpty {
            do throws(FirestoreError) {
                checkpointKey = try QueryIdentity(watched).description
            } catch {
                throw .usage(error.message)
            }
        }
        let (verbose, format, interval, count, source) = (verbose, format, interval, count, mode.source)
        let polls = Mutex(0)
        let resumed = Mutex(false)
        // Every poll's statistics, changed or not, with --verbose (a Listen snapshot carries its own).
        let report: @Sendable (FeedEvent) -> Void = { event in
            if verbose, case .polled(let statistics) = event {
                let number = polls.withLock { count in
                    count += 1
                    return count
                }
                Console.error("poll \(number): \(statistics)")
            }
            if verbose, case .listenProbed(let answeredIn, let billedReads) = event {
                Console.error(
                    "note: the Listen stream was quiet; a liveness probe was answered in \(Console.milliseconds(answeredIn)) ms "
                        + "(\(billedReads) billed read\(billedReads == 1 ? "" : "s"))")
            }
            if case .resumedFromCheckpoint = event { resumed.withLock { $0 = true } }
            Console.report(event)
        }
        // A reader that goes away (`watch | head -n 2`) ends the watch at once, not at the next change.
        StandardOutputWatch.start()
        try await CLIError.runtimeErrors {
            // Opened before the watch starts: a damaged or newer store is an error at once.
            var store: FeedCheckpointStore?
            if let path = checkpoint.path { store = try await FeedCheckpointStore(path: path) }
            try await failureLimit.watching(report: report) { [store, checkpointKey] onEvent in
                var printed = 0
                let stream =
                    if let store {
                        watched.snapshots(
                            source: source, interval: interval, checkpoint: store, key: checkpointKey, onEvent: onEvent)
                    } else {
                        watched.snapshots(source: source, interval: interval, onEvent: onEvent)
                    }
                for try await snapshot in stream {
                    printed += 1
                    if verbose, let statistics = snapshot.statistics, statistics.mode == nil {
                        Console.error("snapshot \(printed): \(statistics)")
                    }
                    let isResumed = resumed.withLock { flag in
                        defer { flag = false }
                        return flag
                    }
                    switch format {
                    case .jsonl:
                        await Console.output(
                            OutputFormat.snapshotJSON(snapshot, resumed: isResumed).serializedString())
                    case .text:
                        await Console.output(OutputFormat.snapshotText(snapshot, number: printed, resumed: isResumed))
                    }
                    // Printed: finished with, so a restart resumes after it.
                    try await store?.acknowledge(key: checkpointKey)
                    if let count, printed >= count { return }
                }
            }
        }
    }
}
