import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// `firestore-feed watch COLLECTION_PATH`: listens to a query (or polls it) and prints each snapshot that has
/// changes.
enum WatchCommand {
    static let spec = CommandSpec(
        usage: ["watch COLLECTION_PATH [options]"],
        abstract: "Watches a query and prints every snapshot that has changes (the first one always).",
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + [
            .value(
                "--interval", "SECONDS",
                help: "time between polls with --mode keys|full|delta or after a fallback (default 1)"),
            .value("--count", "N", help: "exit 0 after printing N snapshots"),
            .value(
                "--mode", "listen|keys|full|delta",
                help: """
                    listen (default): Firestore's Listen stream, changes within
                    milliseconds, billed only for what changed (polls in keys mode,
                    with a note, where it cannot be used); keys: poll names and
                    versions, then fetch only changed documents; full: poll whole
                    documents; delta: poll only documents whose --delta-field moved,
                    plus a count (every writer must set the field to the server time)
                    """),
            .value("--delta-field", "FIELD", help: "the tracking field of --mode delta (default updatedAt)"),
            .flag(
                "--verbose",
                help: "print every poll's statistics and billed reads (listen: each snapshot's) to stderr"),
            .value(
                "--format", "text|jsonl",
                help: """
                    output format (default text); jsonl prints one line per snapshot:
                    {"changes":[{"data","id","newIndex","oldIndex","path","type"}],
                     "readTime","size"} (and "resumed":true on the first snapshot
                     after a restart with --checkpoint)
                    """),
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
        var deltaField = reader.value("--delta-field")
        if modeText == "delta" {
            let field = deltaField ?? "updatedAt"
            do {
                _ = try FieldPath(quoted: field)
            } catch {
                throw .usage("--delta-field \"\(field)\": \(error.message)", help: help)
            }
            deltaField = field
        } else if FeedSource.names.contains(modeText), deltaField != nil {
            throw .usage("--delta-field needs --mode delta", help: help)
        }
        guard let source = FeedSource(name: modeText, deltaField: deltaField) else {
            throw .usage("--mode \"\(modeText)\": expected listen, keys, full or delta", help: help)
        }
        let verbose = reader.has("--verbose")
        let failureLimit = try FailureLimit(reader, help: help)
        let formatText = reader.value("--format") ?? "text"
        guard let format = OutputFormat(rawValue: formatText) else {
            throw .usage("--format \"\(formatText)\": expected text or jsonl", help: help)
        }
        let checkpointPath = reader.value("--checkpoint")
        if checkpointPath == nil, reader.value("--checkpoint-key") != nil {
            throw .usage("--checkpoint-key needs --checkpoint FILE", help: help)
        }
        if checkpointPath == "" { throw .usage("--checkpoint needs a file name", help: help) }
        if reader.value("--checkpoint-key") == "" { throw .usage("--checkpoint-key needs a key", help: help) }
        try options.check(collectionPath: collectionPath, help: help)
        let firestore = try await CassetteOptions.firestore(reader, help: help)
        let query = options.query(firestore, collectionPath: collectionPath)
        do {
            _ = try query.structuredQuery()
        } catch {
            throw .usage(error.message, help: help)
        }
        var checkpointKey = reader.value("--checkpoint-key") ?? ""
        if checkpointKey.isEmpty {
            do throws(FirestoreError) {
                checkpointKey = try QueryIdentity(query).description
            } catch {
                throw .usage(error.message, help: help)
            }
        }
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
            if let checkpointPath { store = try await FeedCheckpointStore(path: checkpointPath) }
            try await failureLimit.watching(report: report) { [interval, count, store, checkpointKey] onEvent in
                var printed = 0
                let stream =
                    if let store {
                        query.snapshots(
                            source: source, interval: interval, checkpoint: store, key: checkpointKey, onEvent: onEvent)
                    } else {
                        query.snapshots(source: source, interval: interval, onEvent: onEvent)
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
