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

    /// Prepares the process before anything else runs: the standard descriptors keep their numbers
    /// (``StandardDescriptors/reserve()``) and SIGQUIT ends the tool (``QuitSignal``). Call it first in `main`,
    /// before the first `await`.
    package static func prepareProcess() {
        StandardDescriptors.reserve()
        QuitSignal.install()
    }

    /// Runs the tool on the process's raw arguments (those after the tool's name, ``RawArguments/process()``)
    /// and exits; an argument that is not valid UTF-8 is a usage error (exit 2) naming it and its position.
    package static func main(rawArguments: [[UInt8]]) async -> Never {
        do {
            await main(arguments: try RawArguments.decode(rawArguments))
        } catch {
            // The command's help when the command itself is readable, the tool's otherwise.
            let command = rawArguments.first.flatMap { String(validating: $0, as: UTF8.self) }
            await fail(.usage(error.message, help: command.flatMap(Self.help(of:)) ?? help))
        }
    }

    /// The help of `command`, or `nil` for an unknown command.
    static func help(of command: String) -> String? {
        switch command {
        case "watch": WatchCommand.help
        case "query": QueryCommand.help
        case "get": GetCommand.help
        case "count": CountCommand.help
        case "demo": DemoCommand.help
        case "serve-cassette": ServeCassetteCommand.help
        default: nil
        }
    }

    /// Runs the tool on `arguments` (those after the tool's name) and exits the process: 0 on success, 1 on a
    /// runtime error, 2 on a usage error.
    package static func main(arguments: [String]) async -> Never {
        guard let command = arguments.first else {
            Console.error(help)
            await finish(2)
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
            await Console.output(help)
            await finish(0)
        case "--version", "version":
            await Console.output("firestore-feed \(version)")
            await finish(0)
        default:
            Console.error("error: unknown command \"\(command)\"\n\n" + help)
            await finish(2)
        }
        if rest.contains("-h") || rest.contains("--help") {
            await Console.output(commandHelp)
            await finish(0)
        }
        do {
            try await run(rest)
            await finish(0)
        } catch {
            await fail(error)
        }
    }

    /// Reports `error` on stderr and exits: a usage error with the message and the command's help (exit 2), a
    /// runtime error as `error: <code>: <message>` (exit 1).
    package static func fail(_ error: CLIError) async -> Never {
        switch error {
        case .usage(let message, let help):
            Console.error("error: \(message)\n\n" + help)
            await finish(2)
        case .runtime(let error):
            Console.error("error: \(error.code.name): \(error.message)")
            await finish(1)
        }
    }

    /// Exits with `status` once everything printed is written (``Console/drain()``).
    package static func finish(_ status: Int32) async -> Never {
        await Console.drain()
        exit(status)
    }
}
