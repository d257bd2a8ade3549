import FirestoreREST
import Foundation

/// The `firestore-feed` command-line tool: dispatches to a subcommand and maps errors to exit codes
/// (2: usage error, `error: <message>` and `see 'firestore-feed help <command>'` on stderr; 1: runtime error as
/// `error: <code>: <message>`).
package enum FirestoreFeedTool {
    static let help = """
        USAGE: firestore-feed <command> [options]

        A Firestore REST client with a realtime change feed (Firestore's Listen stream, or polling).

        COMMANDS:
          watch COLLECTION_PATH   watch a query and print each snapshot's changes
          query COLLECTION_PATH   run a query once, one JSON line per document
          get DOCUMENT_PATH       print one document as a JSON line
          count COLLECTION_PATH   print how many documents a query matches
          set DOCUMENT_PATH JSON  write a document (--merge: only the fields given)
          update DOCUMENT_PATH JSON
                                  change fields of an existing document
          create DOCUMENT_PATH JSON
                                  create a document that must not exist
          add COLLECTION_PATH JSON
                                  add a document with an automatic ID
          delete PATH             delete a document (--recursive: and everything below it,
                                  or a whole collection)
          import COLLECTION_PATH FILE
                                  write one document per JSON line of FILE
          export COLLECTION_PATH  print a query's documents as JSON lines that import reads back
          bundle BUNDLE_ID COLLECTION_PATH
                                  write a data bundle of a query's results (for loadBundle)
          demo                    seed a collection of its own, watch it while writing, print the feed
                                  (--replay: the same from a recording, with no emulator)
          serve-cassette FILE     serve a recorded cassette over HTTP on 127.0.0.1

        Every command talks to the emulator named by --emulator or FIRESTORE_EMULATOR_HOST, and
        without one to production Firestore with Application Default Credentials (--credentials
        FILE to name a key, --project, --database).

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
            let known = command.flatMap { Self.help(of: $0) == nil ? nil : $0 }
            await fail(.usage(error.message, help: known.flatMap(Self.help(of:)) ?? help), command: known ?? "")
        }
    }

    /// A subcommand: its help and what runs it.
    struct Command: Sendable {
        let help: String
        let run: @Sendable ([String]) async throws(CLIError) -> Void
    }

    /// Every subcommand by name.
    static let commands: [String: Command] = [
        "watch": Command(help: WatchCommand.help, run: WatchCommand.run),
        "query": Command(help: QueryCommand.help, run: QueryCommand.run),
        "get": Command(help: GetCommand.help, run: GetCommand.run),
        "count": Command(help: CountCommand.help, run: CountCommand.run),
        "set": Command(help: SetCommand.help, run: SetCommand.run),
        "update": Command(help: UpdateCommand.help, run: UpdateCommand.run),
        "create": Command(help: CreateCommand.help, run: CreateCommand.run),
        "add": Command(help: AddCommand.help, run: AddCommand.run),
        "delete": Command(help: DeleteCommand.help, run: DeleteCommand.run),
        "import": Command(help: ImportCommand.help, run: ImportCommand.run),
        "export": Command(help: ExportCommand.help, run: ExportCommand.run),
        "bundle": Command(help: BundleCommand.help, run: BundleCommand.run),
        "demo": Command(help: DemoCommand.help, run: DemoCommand.run),
        "serve-cassette": Command(help: ServeCassetteCommand.help, run: ServeCassetteCommand.run),
    ]

    /// The help of `command`, or `nil` for an unknown command.
    static func help(of command: String) -> String? { commands[command]?.help }

    /// Runs the tool on `arguments` (those after the tool's name) and exits the process: 0 on success, 1 on a
    /// runtime error, 2 on a usage error.
    package static func main(arguments: [String]) async -> Never {
        guard let command = arguments.first else {
            Console.error(help)
            await finish(2)
        }
        let rest = Array(arguments.dropFirst())
        guard let selected = commands[command] else {
            switch command {
            case "help" where rest.count == 1 && help(of: rest[0]) != nil:
                await main(arguments: [rest[0], "--help"])
            case "help" where !rest.isEmpty:
                await fail(.usage("unknown command \"\(rest.joined(separator: " "))\"", help: help), command: "")
            case "-h", "--help", "help":
                await Console.output(help)
                await finish(0)
            case "--version", "version":
                guard rest.isEmpty else {
                    await fail(.usage("\(command) takes no arguments, got \"\(rest[0])\"", help: help), command: "")
                }
                await Console.output("firestore-feed \(version)")
                await finish(0)
            case let option where option.hasPrefix("-"):
                let message =
                    "\(option) comes before the command: options follow it (firestore-feed COMMAND ... \(option))"
                await fail(.usage(message, help: help), command: "")
            default:
                await fail(.usage("unknown command \"\(command)\"", help: help), command: "")
            }
        }
        if rest.contains("-h") || rest.contains("--help") {
            await Console.output(selected.help)
            await finish(0)
        }
        do {
            try await selected.run(rest)
            await finish(0)
        } catch {
            await fail(error, command: command)
        }
    }

    /// Reports `error` on stderr and exits: a usage error as `error: <message>` (exit 2), then, when `command` is
    /// given, `see 'firestore-feed help <command>'` (`""`: the tool's `see 'firestore-feed help'`), else the
    /// help the error carries; a runtime error as `error: <code>: <message>` (exit 1).
    package static func fail(_ error: CLIError, command: String? = nil) async -> Never {
        switch error {
        case .usage(let message, let help):
            switch command {
            case nil: Console.error("error: \(message)\n\n" + help)
            case ""?: Console.error("error: \(message)\nsee 'firestore-feed help'")
            case let command?: Console.error("error: \(message)\nsee 'firestore-feed help \(command)'")
            }
            await finish(2)
        case .runtime(let error):
            Console.error(ErrorReport.runtime(error))
            await finish(1)
        }
    }

    /// Exits with `status` once every recording is ended (``CassetteOptions/finishRecordings()``; a failure to
    /// write the cassette makes a success exit 1) and everything printed is written (``Console/drain()``).
    package static func finish(_ status: Int32) async -> Never {
        var status = status
        if let failure = CassetteOptions.finishRecordings() {
            Console.error(ErrorReport.runtime(failure))
            if status == 0 { status = 1 }
        }
        await Console.drain()
        exit(status)
    }
}
