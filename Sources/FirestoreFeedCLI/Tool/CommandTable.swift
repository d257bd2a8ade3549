/// Every command of `firestore-feed`, in the order the tool's help lists them, with the tool's help.
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
        Entry(WatchCommand.self), Entry(QueryCommand.self), Entry(GetCommand.self), Entry(CountCommand.self),
        Entry(SetCommand.self), Entry(UpdateCommand.self), Entry(CreateCommand.self), Entry(AddCommand.self),
        Entry(DeleteCommand.self), Entry(ImportCommand.self), Entry(ExportCommand.self), Entry(BundleCommand.self),
        Entry(DemoCommand.self), Entry(ServeCassetteCommand.self),
    ]

    /// The command named `name`, or `nil`.
    package static func command(named name: String) -> Entry? {
        commands.first { $0.spec.name == name }
    }

    /// The tool's help.
    package static let help = """
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
}
