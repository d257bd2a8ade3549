import FirestoreREST
import Foundation

/// The `firestore-feed` command-line tool: dispatches to a command of the ``CommandTable`` and maps errors to
/// exit codes (2: usage error, `error: <message>` and `see 'firestore-feed help <command>'` on stderr; 1: runtime
/// error as `error: <code>: <message>`).
package enum FirestoreFeedTool {
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
            let known = command.flatMap { CommandTable.command(named: $0) == nil ? nil : $0 }
            await fail(.usage(error.message), help: known.map { .command($0) } ?? .tool)
        }
    }

    /// Runs the tool on `arguments` (those after the tool's name) and exits the process: 0 on success, 1 on a
    /// runtime error, 2 on a usage error.
    package static func main(arguments: [String]) async -> Never {
        guard let name = arguments.first else {
            Console.error(CommandTable.help)
            await finish(2)
        }
        let rest = Array(arguments.dropFirst())
        guard let command = CommandTable.command(named: name) else { await toolCommand(name, rest) }
        if rest.contains("-h") || rest.contains("--help") {
            await Console.output(command.spec.help)
            await finish(0)
        }
        do {
            try await command.main(rest)
            await finish(0)
        } catch {
            await fail(error, help: .command(name))
        }
    }

    /// What the tool itself does with a first argument that names no command: `help [COMMAND]`, `--help`,
    /// `--version`; anything else is a usage error.
    private static func toolCommand(_ name: String, _ rest: [String]) async -> Never {
        switch name {
        case "help" where rest.count == 1 && CommandTable.command(named: rest[0]) != nil:
            await main(arguments: [rest[0], "--help"])
        case "help" where !rest.isEmpty:
            await fail(.usage(unknownCommand(rest.joined(separator: " "))))
        case "-h", "--help", "help":
            await Console.output(CommandTable.help)
            await finish(0)
        case "--version", "version":
            guard rest.isEmpty else { await fail(.usage("\(name) takes no arguments, got \"\(rest[0])\"")) }
            await Console.output("firestore-feed \(version)")
            await finish(0)
        case let option where option.hasPrefix("-"):
            await fail(
                .usage("\(option) comes before the command: options follow it (firestore-feed COMMAND ... \(option))"))
        default:
            await fail(.usage(unknownCommand(name)))
        }
    }

    /// `unknown command "wacth" (did you mean "watch"?)`: the closest commands of the table, `help` and
    /// `version` (``Suggestion``).
    package static func unknownCommand(_ name: String) -> String {
        let known = CommandTable.commands.map(\.spec.name) + ["help", "version"]
        return "unknown command \"\(name)\"" + Suggestion.hint(for: name, among: known, quoted: true)
    }

    /// Reports `error` on stderr (``ErrorReport/text(_:help:)``) and exits: 2 for a usage error, 1 for a
    /// runtime error.
    package static func fail(_ error: CLIError, help: ErrorReport.HelpPointer = .tool) async -> Never {
        Console.error(ErrorReport.text(error, help: help))
        switch error {
        case .usage: await finish(2)
        case .runtime: await finish(1)
        }
    }

    /// Exits with `status` once every recording is ended (``CassetteRecordings/finish()``; a failure to write
    /// the cassette makes a success exit 1) and everything printed is written (``Console/drain()``).
    package static func finish(_ status: Int32) async -> Never {
        var status = status
        if let failure = CassetteRecordings.finish() {
            Console.error(ErrorReport.runtime(failure))
            if status == 0 { status = 1 }
        }
        await Console.drain()
        exit(status)
    }
}
