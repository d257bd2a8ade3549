import FirestoreREST
import Foundation

/// The `firestore-feed` command-line tool: dispatches to a subcommand and maps errors to exit codes
/// (2: usage error with help on stderr; 1: runtime error as `error: <code>: <message>`).
package enum FirestoreFeedTool {
    static let help = """
        USAGE: firestore-feed <command> [options]

        A Firestore REST client with a realtime change feed (Firestore's Listen stream, or polling).

        COMMANDS:
          watch COLLECTION_PATH   watch a query and print each snapshot's changes
          query COLLECTION_PATH   run a query once, one JSON line per document
          get DOCUMENT_PATH       print one document as a JSON line
          count COLLECTION_PATH   print how many documents a query matches
          demo                    seed a fruits collection, watch it while writing, print the feed
                                  (--replay: the same from a recording, with no emulator)
          serve-cassette FILE     serve a recorded cassette over HTTP on 127.0.0.1

        Run 'firestore-feed help <command>' or 'firestore-feed <command> --help' for a command's options;
        'firestore-feed --version' prints the version.
        """

    /// The tool's version: the package's.
    package static var version: String { FirestoreFeedPackage.version }

    /// Runs the tool on `arguments` (those after the tool's name) and exits the process: 0 on success, 1 on a
    /// runtime error, 2 on a usage error.
    package static func main(arguments: [String]) async -> Never {
        guard let command = arguments.first else {
            Console.error(help)
            exit(2)
        }
        let rest = Array(arguments.dropFirst())
        let commandHelp: String
        let run: ([String]) async throws(CLIError) -> Void
        switch command {
        case "watch": (commandHelp, run) = (WatchCommand.help, WatchCommand.run)
        case "query": (commandHelp, run) = (QueryCommand.help, QueryCommand.run)
        case "get": (commandHelp, run) = (GetCommand.help, GetCommand.run)
        case "count": (commandHelp, run) = (CountCommand.help, CountCommand.run)
        case "demo": (commandHelp, run) = (DemoCommand.help, DemoCommand.run)
        case "serve-cassette": (commandHelp, run) = (ServeCassetteCommand.help, ServeCassetteCommand.run)
        case "help" where rest.count == 1:
            await main(arguments: [rest[0], "--help"])
        case "-h", "--help", "help":
            Console.output(help)
            exit(0)
        case "--version", "version":
            Console.output("firestore-feed \(version)")
            exit(0)
        default:
            Console.error("error: unknown command \"\(command)\"\n\n" + help)
            exit(2)
        }
        if rest.contains("-h") || rest.contains("--help") {
            Console.output(commandHelp)
            exit(0)
        }
        do {
            try await run(rest)
            exit(0)
        } catch {
            fail(error)
        }
    }

    /// Reports `error` on stderr and exits: a usage error with the message and the command's help (exit 2), a
    /// runtime error as `error: <code>: <message>` (exit 1).
    package static func fail(_ error: CLIError) -> Never {
        switch error {
        case .usage(let message, let help):
            Console.error("error: \(message)\n\n" + help)
            exit(2)
        case .runtime(let error):
            Console.error("error: \(error.code.name): \(error.message)")
            exit(1)
        }
    }
}
