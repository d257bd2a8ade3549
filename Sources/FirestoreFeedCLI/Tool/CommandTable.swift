/// Every command of `firestore-feed`, in the order the tool's help lists them: the dispatch (``command(named:)``)
/// and the tool's help (``help``) both read this one table, and each command's entry in the help comes from its
/// ``CommandSpec``, so a command cannot run without being listed, or be listed without running.
package enum CommandTable {
    /// A command of the table: its declaration, and what parses, validates and runs it.
    package struct Entry: Sendable {
        package let spec: CommandSpec
        /// ``ParsableCommand/main(_:)`` of the command.
        package let main: @Sendable ([String]) async throws(CLIError) -> Void

        package init<Command: ParsableCommand>(_ command: Command.Type) {
            spec = Command.spec
            main = { (arguments: [String]) async throws(CLIError) in try await Command.main(arguments) }
        }
    }

    /// The commands, in help order.
    package static let commands: [Entry] = [
        Entry(WatchCommand.self), Entry(MirrorCommand.self), Entry(PublishCommand.self), Entry(QueryCommand.self),
        Entry(GetCommand.self),
        Entry(CountCommand.self),
        Entry(SetCommand.self), Entry(UpdateCommand.self), Entry(CreateCommand.self), Entry(AddCommand.self),
        Entry(DeleteCommand.self), Entry(ImportCommand.self), Entry(ExportCommand.self), Entry(BundleCommand.self),
        Entry(DemoCommand.self), Entry(ServeCommand.self), Entry(ServeCassetteCommand.self),
    ]

    /// The command named `name`, or `nil`.
    package static func command(named name: String) -> Entry? {
        commands.first { $0.spec.name == name }
    }

    /// The tool's help: usage, what the tool is, one entry per command of ``commands``, and how to go on.
    package static var help: String {
        help(listing: commands.map(\.spec))
    }

    /// The tool's help listing `specs`.
    package static func help(listing specs: [CommandSpec]) -> String {
        let lines =
            [
                "USAGE: firestore-feed <command> [options]",
                "",
                "A Firestore client (gRPC, or REST) with a realtime change feed (Firestore's Listen stream, or polling).",
                "",
                "COMMANDS:",
            ] + specs.map(\.listing) + [
                "",
                "Every command talks to the emulator named by --emulator or FIRESTORE_EMULATOR_HOST, and",
                "without one to production Firestore with Application Default Credentials (--credentials",
                "FILE to name a key, --project, --database).",
                "",
                "Run 'firestore-feed help <command>' or 'firestore-feed <command> --help' for a command's options;",
                "'firestore-feed --version' prints the version.",
            ]
        return lines.joined(separator: "\n")
    }
}
