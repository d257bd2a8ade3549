import FirestoreFeed
import FirestoreREST
import Foundation

/// `firestore-feed watch COLLECTION_PATH`: polls a query and prints each snapshot that has changes.
enum WatchCommand {
    static let help = """
        USAGE: firestore-feed watch COLLECTION_PATH [options]

        Polls a query and prints every snapshot that has changes (the first one always).

        OPTIONS:
        \(ConnectionOptions.help)
        \(CassetteOptions.help)
        \(QueryOptions.help)
          --interval SECONDS         time between polls, decimal (default 1)
          --count N                  exit 0 after printing N snapshots
          --mode keys|full           keys (default): poll names and versions, then fetch only changed
                                     documents; full: poll whole documents
          --verbose                  print each snapshot's poll statistics to stderr
          --format text|jsonl        output format (default text); jsonl prints one line per snapshot:
                                 {"changes":[{"data","id","newIndex","oldIndex","path","type"}],
                                  "readTime","size"}
          -h, --help                 show this help
        """

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(
            arguments,
            valueFlags: ConnectionOptions.valueFlags.union(QueryOptions.valueFlags).union(CassetteOptions.valueFlags)
                .union(["--interval", "--count", "--format", "--mode"]),
            switchFlags: QueryOptions.switchFlags.union(["--verbose"]), help: help)
        guard reader.positionals.count == 1, let collectionPath = reader.positionals.first else {
            throw .usage("watch needs exactly one COLLECTION_PATH", help: help)
        }
        let options = try QueryOptions(reader, help: help)
        var interval = Duration.seconds(1)
        if let text = reader.value("--interval") {
            guard let seconds = WhereClause.seconds(text), seconds.isFinite, seconds >= 0.01, seconds <= 86_400 else {
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
        let modeText = reader.value("--mode") ?? "keys"
        guard let mode = PollMode(rawValue: modeText) else {
            throw .usage("--mode \"\(modeText)\": expected keys or full", help: help)
        }
        let verbose = reader.has("--verbose")
        let formatText = reader.value("--format") ?? "text"
        guard let format = OutputFormat(rawValue: formatText) else {
            throw .usage("--format \"\(formatText)\": expected text or jsonl", help: help)
        }
        let firestore = try CassetteOptions.firestore(reader, help: help)
        let query = options.query(firestore, collectionPath: collectionPath)
        do {
            _ = try query.structuredQuery()
        } catch {
            throw .usage(error.message, help: help)
        }
        var printed = 0
        do {
            let stream = query.snapshots(interval: interval, mode: mode, onEvent: Console.report)
            for try await snapshot in stream {
                printed += 1
                if verbose, let statistics = snapshot.statistics {
                    Console.error("poll \(printed): \(statistics)")
                }
                switch format {
                case .jsonl: Console.output(OutputFormat.snapshotJSON(snapshot).serializedString())
                case .text: Console.output(OutputFormat.snapshotText(snapshot, number: printed))
                }
                if let count, printed >= count { return }
            }
        } catch let error as FirestoreError {
            throw .runtime(error)
        } catch {
            throw .runtime(FirestoreError(code: .unknown, message: "\(error)"))
        }
    }
}
