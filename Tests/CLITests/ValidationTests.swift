import FirestoreFeedCLI
import Foundation
import Testing

/// Each command in three steps, as swift-argument-parser's `ParsableCommand`: parsing reads every value into its
/// type, `validate()` checks what needs several options at once (and the query the options make) before anything
/// connects or prints, and only `run()` connects. No process, no network.
@Suite(.timeLimit(.minutes(2))) struct ValidationTests {
    /// What `Command`'s `validate()` throws for `arguments`, which must parse; `nil` when it throws nothing.
    static func validationError<Command: ParsableCommand>(
        _ command: Command.Type, _ arguments: [String]
    ) throws -> String? {
        let parsed = try Command(parsing: ArgumentReader(arguments, command: Command.spec))
        do {
            try parsed.validate()
            return nil
        } catch {
            return error.message
        }
    }

    /// What parsing `arguments` throws, `nil` when it parses.
    static func parseError<Command: ParsableCommand>(_ command: Command.Type, _ arguments: [String]) -> String? {
        do {
            _ = try Command(parsing: ArgumentReader(arguments, command: Command.spec))
            return nil
        } catch {
            return error.message
        }
    }

    @Test(arguments: [
        (["c", "--limit", "1", "--limit-to-last", "1"], "--limit and --limit-to-last cannot be combined"),
        (["c", "--limit-to-last", "1"], "--limit-to-last needs at least one --order-by"),
        (
            ["c", "--order-by", "a", "--start-at", "1", "--start-after", "1"],
            "--start-at and --start-after cannot be combined"
        ),
        (
            ["c", "--order-by", "a", "--end-at", "1", "--end-before", "1"],
            "--end-at and --end-before cannot be combined"
        ),
        (["c", "--start-at", "1"], "the start cursor with values needs at least one order(by:)"),
        (["fruits/apple"], "\"fruits/apple\" is not a collection path (it needs an odd number of segments)"),
        (["c", "--record-mode", "all"], "--record-mode needs --cassette FILE"),
        (["c", "--allow-playback-repeats"], "--allow-playback-repeats needs --cassette FILE"),
    ])
    func theQueryAndCassetteOptionsAreValidatedTogether(arguments: [String], message: String) throws {
        #expect(try Self.validationError(QueryCommand.self, arguments) == message)
        #expect(try Self.validationError(CountCommand.self, arguments) == message)
        #expect(try Self.validationError(ExportCommand.self, arguments) == message)
        #expect(try Self.validationError(WatchCommand.self, arguments) == message)
    }

    @Test(arguments: [
        (["c", "--delta-field", "t"], "--delta-field needs --mode delta"),
        (["c", "--mode", "keys", "--delta-field", "t"], "--delta-field needs --mode delta"),
        (["c", "--checkpoint-key", "k"], "--checkpoint-key needs --checkpoint FILE"),
        (["c", "--checkpoint-key", ""], "--checkpoint-key needs --checkpoint FILE"),
        (["c", "--checkpoint", ""], "--checkpoint needs a file name"),
        (["c", "--checkpoint", "f", "--checkpoint-key", ""], "--checkpoint-key needs a key"),
        (["c", "--mode", "delta", "--delta-field", "t", "--checkpoint", "f", "--checkpoint-key", "k"], nil),
    ])
    func watchValidatesItsModeAndCheckpoint(arguments: [String], message: String?) throws {
        #expect(try Self.validationError(WatchCommand.self, arguments) == message)
    }

    @Test(arguments: [
        (["c", "--shards", "4"], "--shards, --member, --lease and --renew need --group NAME"),
        (["c", "--group", "a/b"], "--group \"a/b\": expected a document ID"),
        (["c", "--group", "g", "--mode", "keys"], "--group listens: it cannot be combined with --mode"),
        (
            ["c", "--group", "g", "--checkpoint", "f"],
            "--group keeps each shard's checkpoint in Firestore: drop --checkpoint"
        ),
        (["c", "--group", "g", "--shards", "1001"], "--shards 1001: at most 1000"),
        (
            ["c", "--group", "g", "--lease", "2", "--renew", "1.5"],
            "feed group lease length 2.0 seconds and renewal interval 1.5 seconds: the lease must be at least 1 s and "
                + "the interval at most half of it"
        ),
        (["c", "--group", "g", "--member", "__x__"], "feed group member ID \"__x__\" is not a Firestore document ID"),
        (["c", "--group", "g", "--shards", "8", "--member", "m1", "--lease", "2", "--renew", "0.5"], nil),
    ])
    func watchValidatesItsGroupOptions(arguments: [String], message: String?) throws {
        #expect(try Self.validationError(WatchCommand.self, arguments) == message)
    }

    @Test func writesValidateTheServerTimestampAndDeleteTheRecursion() throws {
        let empty = ["--server-timestamp", ""]
        #expect(
            try Self.validationError(SetCommand.self, ["c/d", "{}"] + empty) == "--server-timestamp needs a field path")
        #expect(
            try Self.validationError(UpdateCommand.self, ["c/d", #"{"a":1}"#] + empty)
                == "--server-timestamp needs a field path")
        #expect(
            try Self.validationError(CreateCommand.self, ["c/d", "{}"] + empty)
                == "--server-timestamp needs a field path")
        #expect(
            try Self.validationError(AddCommand.self, ["c", "{}"] + empty) == "--server-timestamp needs a field path")
        #expect(
            try Self.validationError(ImportCommand.self, ["c", "-"] + empty) == "--server-timestamp needs a field path")
        #expect(try Self.validationError(SetCommand.self, ["c/d", "{}", "--server-timestamp", "at"]) == nil)
        #expect(
            try Self.validationError(DeleteCommand.self, ["fruits"])
                == "\"fruits\" is a collection: deleting it and everything below it needs --recursive")
        #expect(try Self.validationError(DeleteCommand.self, ["fruits", "--recursive"]) == nil)
    }

    @Test(arguments: [
        (["--speed", "2"], "--speed needs --replay"),
        (["extra"], "demo takes no arguments"),
        (["--replay", "--emulator", "h:1"], "--replay runs without an emulator: drop --emulator"),
        (["--replay", "a.json", "b.json"], "--replay takes one FILE"),
        (["--replay=a.json", "b.json"], "--replay takes one FILE"),
        (["--replay", "a.json", "--speed", "2"], nil),
    ])
    func demoValidatesItsReplay(arguments: [String], message: String?) throws {
        #expect(try Self.validationError(DemoCommand.self, arguments) == message)
    }

    /// A value that cannot be read fails in parsing, before validation: each option's type and range.
    @Test(
        arguments: [
            ("watch", ["c", "--count", "0"], "--count \"0\": expected a whole number above 0"),
            ("watch", ["c", "--interval", "0x10"], "--interval \"0x10\": expected seconds from 0.01 to 86400"),
            ("watch", ["c", "--max-failures", "x"], "--max-failures \"x\": expected a whole number above 0"),
            ("watch", ["c", "--format", "xml"], "--format \"xml\": expected text or jsonl"),
            ("watch", ["c", "--mode", "fast"], "--mode \"fast\": expected listen, keys, full or delta"),
            ("watch", ["c", "--limit", "-1"], "--limit \"-1\": expected a whole number from 0 to 2147483647"),
            ("watch", ["c", "--cassette", ""], "--cassette needs a file name"),
            (
                "watch", ["c", "--record-mode", "sometimes"],
                "--record-mode \"sometimes\": expected once, none, all or new-episodes"
            ),
            ("watch", ["c", "d"], "watch needs exactly one COLLECTION_PATH, got 2 (c d)"),
            ("serve-cassette", ["f", "--port", "70000"], "--port \"70000\": expected a number from 0 to 65535"),
            ("serve-cassette", ["f", "--speed", "0"], "--speed \"0\": expected a number from 0.01 to 1000"),
            (
                "serve-cassette", ["f", "--max-connections", "0"],
                "--max-connections \"0\": expected a number from 1 to 10000"
            ),
            (
                "serve-cassette", ["f", "--max-body-bytes", "-1"],
                "--max-body-bytes \"-1\": expected a number from 0 to 1073741824"
            ),
            (
                "serve-cassette", ["f", "--idle-timeout", "0"],
                "--idle-timeout \"0\": expected seconds from 0.01 to 86400"
            ),
            ("serve-cassette", ["f", "g"], "serve-cassette needs exactly one FILE"),
            ("serve-cassette", ["f", "--port", "0", "--speed", "2.5", "--idle-timeout", "0.5"], nil),
            ("demo", ["--interval", "61"], "--interval \"61\": expected seconds from 0.01 to 60"),
            ("serve", ["c", "--port", "65536"], "--port \"65536\": expected a number from 0 to 65535"),
            ("serve", ["c", "--max-clients", "0"], "--max-clients \"0\": expected a number from 1 to 100000"),
            ("serve", ["c", "--client-buffer", "0"], "--client-buffer \"0\": expected a number from 1 to 1000000"),
            ("serve", ["c", "--token", ""], "--token needs a token"),
            (
                "serve", ["c", "--host", "localhost"],
                "--host \"localhost\": expected an IPv4 address such as 127.0.0.1 or 0.0.0.0"
            ),
            ("serve", ["c", "d"], "serve needs exactly one COLLECTION_PATH, got 2 (c d)"),
            ("serve", ["c", "--port", "0", "--token", "t", "--host", "0.0.0.0", "--order-by", "name"], nil),
        ] as [(String, [String], String?)])
    func aValueThatCannotBeReadFailsInParsing(command: String, arguments: [String], message: String?) {
        let error =
            switch command {
            case "watch": Self.parseError(WatchCommand.self, arguments)
            case "demo": Self.parseError(DemoCommand.self, arguments)
            case "serve": Self.parseError(ServeCommand.self, arguments)
            default: Self.parseError(ServeCassetteCommand.self, arguments)
            }
        #expect(error == message)
    }

    /// `parse` runs both steps and gives a usage error, which the tool reports in one line and a pointer to the
    /// command's help.
    @Test func aUsageErrorPointsAtTheCommandsHelp() {
        for (arguments, message) in [
            (["c/d", "--bogus"], "unknown option --bogus"),
            (["c"], "\"c\" is not a document path (it needs an even number of segments)"),
            (["c/d", "--record-mode", "none"], "--record-mode needs --cassette FILE"),
        ] {
            do {
                _ = try GetCommand.parse(arguments)
                Issue.record("\(arguments) parsed")
            } catch {
                #expect(
                    ErrorReport.text(error, help: .command("get"))
                        == "error: \(message)\nsee 'firestore-feed help get'")
            }
        }
    }

    /// The connection's one choice: a cassette to replay, else the emulator named, else production.
    @Test func theConnectionChoosesTheCassetteTheEmulatorOrProduction() throws {
        func target(_ arguments: [String]) throws -> FirestoreConnection.Target {
            try FirestoreConnection(parsing: ArgumentReader(["c/d"] + arguments, command: GetCommand.spec)).target()
        }
        let missing = NSTemporaryDirectory() + "cli-target-\(UUID().uuidString).json"
        #expect(try target(["--cassette", missing, "--record-mode", "none"]) == .replay(cassette: missing))
        #expect(try target(["--cassette", missing, "--emulator", "http://h:1"]) == .emulator(host: "h:1"))
        #expect(try target(["--emulator", "[::1]"]) == .emulator(host: "[::1]:8080"))
        #expect(
            throws: ValidationError(
                "--emulator \"h:x\": expected HOST, HOST:PORT or http://HOST:PORT (e.g. 127.0.0.1:8080)")
        ) {
            try target(["--emulator", "h:x"])
        }
    }
}
