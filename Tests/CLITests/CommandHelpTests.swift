import FirestoreFeedCLI
import Testing

/// The tool's help, generated from the command table, and a command's help, generated from its declaration: no
/// process, no network.
@Suite(.timeLimit(.minutes(2))) struct CommandHelpTests {
    @Test func theToolsHelpListsTheTableInOrder() {
        #expect(
            CommandTable.help == """
                USAGE: firestore-feed <command> [options]

                A Firestore client (gRPC, or REST) with a realtime change feed (Firestore's Listen stream, or polling).

                COMMANDS:
                  watch COLLECTION_PATH   watch a query and print each snapshot's changes
                  mirror COLLECTION_PATH --sqlite FILE
                                          mirror a query into an SQLite or PostgreSQL table, keep it current
                  publish COLLECTION_PATH --topic TOPIC
                                          publish a query's changes to a Pub/Sub topic, one message per change
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
                  serve COLLECTION_PATH   serve a query as a live list over server-sent events, with a page
                  serve-cassette FILE     serve a recorded cassette over HTTP on 127.0.0.1

                Every command talks to the emulator named by --emulator or FIRESTORE_EMULATOR_HOST, and
                without one to production Firestore with Application Default Credentials (--credentials
                FILE to name a key, --project, --database).

                Run 'firestore-feed help <command>' or 'firestore-feed <command> --help' for a command's options;
                'firestore-feed --version' prints the version.
                """)
    }

    /// Each entry comes from the command's declaration: its name and first usage line without `[options]` (or
    /// the synopsis it gives), its summary from column 26, on the next line when the synopsis reaches it.
    @Test func anEntryComesFromTheCommandsDeclaration() {
        let specs = [
            CommandSpec(name: "ping", usage: ["[options]"], summary: "answer", abstract: "", options: []),
            CommandSpec(
                name: "copy", usage: ["FROM_COLLECTION TO_COLLECTION [options]"], summary: "copy\nevery document",
                abstract: "", options: []),
            CommandSpec(
                name: "drop", usage: ["DOCUMENT_PATH [options]", "PATH --all"], summary: "drop one",
                synopsis: "drop PATH", abstract: "", options: []),
        ]
        #expect(specs.map(\.synopsis) == ["ping", "copy FROM_COLLECTION TO_COLLECTION", "drop PATH"])
        #expect(
            CommandTable.help(listing: specs).split(separator: "\n").dropFirst(3).prefix(5).joined(separator: "\n")
                == """
                  ping                    answer
                  copy FROM_COLLECTION TO_COLLECTION
                                          copy
                                          every document
                  drop PATH               drop one
                """)
    }

    @Test func everyCommandIsFoundByItsName() {
        let names = CommandTable.commands.map(\.spec.name)
        #expect(
            names == [
                "watch", "mirror", "publish", "query", "get", "count", "set", "update", "create", "add", "delete",
                "import",
                "export", "bundle", "demo", "serve", "serve-cassette",
            ])
        #expect(names.allSatisfy { CommandTable.command(named: $0)?.spec.name == $0 })
        #expect(CommandTable.command(named: "help") == nil)
    }

    /// The usage lines name the tool and the command; the options follow the declaration's order.
    @Test func aCommandsHelpComesFromItsDeclaration() {
        let lines = DeleteCommand.help.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines.prefix(2) == [
                "USAGE: firestore-feed delete DOCUMENT_PATH [options]",
                "       firestore-feed delete PATH --recursive [options]",
            ])
        #expect(
            lines.filter { $0.hasPrefix("  -") }.map { $0.split(separator: " ")[0] } == [
                "--emulator", "--project", "--database", "--credentials", "--endpoint", "--ca-bundle", "--protocol",
                "--recursive",
                "-h,",
            ])
    }

    /// A tool without commands (`RecordRecordings`) has no name between the tool and the arguments.
    @Test func aToolWithoutCommandsPrintsItsOwnUsage() {
        let spec = CommandSpec(
            tool: "RecordRecordings", usage: ["SCENARIO FILE [options]"], abstract: "Records.",
            sections: "SCENARIOS:\n  demo  the demo", options: [.flag("--dry", help: "record nothing")])
        #expect(
            spec.help == """
                USAGE: RecordRecordings SCENARIO FILE [options]

                Records.

                SCENARIOS:
                  demo  the demo

                OPTIONS:
                  --dry                      record nothing
                  -h, --help                 show this help
                """)
    }
}
