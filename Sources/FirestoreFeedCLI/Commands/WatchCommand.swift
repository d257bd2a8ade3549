import FirestoreFeed
import FirestoreREST
import Foundation

/// `firestore-feed watch COLLECTION_PATH`: listens to a query (or polls it) and prints each snapshot that has
/// changes.
enum WatchCommand {
    static let spec = CommandSpec(
        usage: ["watch COLLECTION_PATH [options]"],
        abstract: "Watches a query and prints every snapshot that has changes (the first one always).",
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + [
            .value(
                "--interval", "SECONDS",
                help: "time between polls with --mode keys|full or after a fallback (default 1)"),
            .value("--count", "N", help: "exit 0 after printing N snapshots"),
            .value(
                "--mode", "listen|keys|full",
                help: """
                    listen (default): Firestore's Listen stream, changes within
                    milliseconds, billed only for what changed (polls in keys mode,
                    with a note, where it cannot be used); keys: poll names and
                    versions, then fetch only changed documents; full: poll whole
                    documents
                    """),
            .flag(
                "--verbose",
                help: "print each snapshot's poll statistics (listen: documents delivered) to stderr"),
            .value(
                "--format", "text|jsonl",
                help: """
                    output format (default text); jsonl prints one line per snapshot:
                    {"changes":[{"data","id","newIndex","oldIndex","path","type"}],
                     "readTime","size"}
                    """),
            FailureLimit.option,
        ])
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 1, let collectionPath = reader.positionals.first else {
            throw .usage("watch needs exactly one COLLECTION_PATH", help: help)
        }
        let options = try QueryOptions(reader, help: help)
        var interval = Duration.seconds(1)
        if let text = reader.value("--interval") {
            guard let seconds = SecondsArgument.seconds(text), seconds.isFinite, seconds >= 0.01, seconds <= 86_400
            else {
                throw .usage("--interval \"\(text)\": expected seconds from 0.01 to 86400", help: help)
            }
            interval = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        var count: Int?
        if let text = reader.value("--count") {
            guard let number = Int(text), number > 0 else {
                throw .usage("--count \"\(text)\": expected a whole number above 0", help: help)
            }
            count = number
        }
        let modeText = reader.value("--mode") ?? "listen"
        guard let source = FeedSource(rawValue: modeText) else {
            throw .usage("--mode \"\(modeText)\": expected listen, keys or full", help: help)
        }
        let verbose = reader.has("--verbose")
        let failureLimit = try FailureLimit(reader, help: help)
        let formatText = reader.value("--format") ?? "text"
        guard let format = OutputFormat(rawValue: formatText) else {
            throw .usage("--format \"\(formatText)\": expected text or jsonl", help: help)
        }
        try options.check(collectionPath: collectionPath, help: help)
        let firestore = try await CassetteOptions.firestore(reader, help: help)
        let query = options.query(firestore, collectionPath: collectionPath)
        do {
            _ = try query.structuredQuery()
        } catch {
            throw .usage(error.message, help: help)
        }
        // A reader that goes away (`watch | head -n 2`) ends the watch at once, not at the next change.
        StandardOutputWatch.start()
        try await CLIError.runtimeErrors {
            try await failureLimit.watching(report: Console.report) { [interval, count] onEvent in
                var printed = 0
                let stream = query.snapshots(source: source, interval: interval, onEvent: onEvent)
                for try await snapshot in stream {
                    printed += 1
                    if verbose, let statistics = snapshot.statistics {
                        Console.error("poll \(printed): \(statistics)")
                    } else if verbose {
                        // A listener is billed one read per document delivered: added or modified (Firestore pricing,
                        // "Listening to query results"); a removal delivers no document.
                        let delivered = snapshot.documentChanges.filter { $0.type != .removed }.count
                        Console.error(
                            "listen \(printed): \(delivered) document\(delivered == 1 ? "" : "s") delivered (billed reads)"
                        )
                    }
                    switch format {
                    case .jsonl: await Console.output(OutputFormat.snapshotJSON(snapshot).serializedString())
                    case .text: await Console.output(OutputFormat.snapshotText(snapshot, number: printed))
                    }
                    if let count, printed >= count { return }
                }
            }
        }
    }
}
