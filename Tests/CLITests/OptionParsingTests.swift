import FirestoreFeedCLI
import Testing

/// The option table (`OptionSpec`, `CommandSpec`) and the parser built on it: no process, no network.
@Suite(.timeLimit(.minutes(2))) struct OptionParsingTests {
    static let command = CommandSpec(
        usage: ["try PATH [options]"], abstract: "A command for the tests.",
        options: [
            .value("--limit", "N", help: "at most N"),
            .value("--where", "'FIELD OP VALUE'", help: "filter (repeatable)\nsecond line"),
            .flag("--verbose", help: "say more"),
            OptionSpec("--replay", .optional("FILE"), help: "replay FILE"),
        ])

    static func usageMessage(_ arguments: [String]) -> String? {
        do {
            _ = try ArgumentReader(arguments, command: command)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func everyOptionTakesItsValueAfterAnEqualsSign() throws {
        let reader = try ArgumentReader(
            ["p", "--limit=5", "--where=a == 1", "--where", "b == 2", "--verbose=1", "--replay=x.json"],
            command: Self.command)
        #expect(reader.positionals == ["p"])
        #expect(reader.value("--limit") == "5")
        #expect(reader.all("--where") == ["a == 1", "b == 2"])
        #expect(reader.has("--verbose"))
        #expect(reader.value("--replay") == "x.json")
        #expect(!reader.has("--replay"))
    }

    @Test func switchesTakeTruthValuesOnly() throws {
        #expect(try ArgumentReader(["--verbose=false"], command: Self.command).has("--verbose") == false)
        #expect(try ArgumentReader(["--verbose", "--verbose=off"], command: Self.command).has("--verbose") == false)
        #expect(try ArgumentReader(["--verbose=YES"], command: Self.command).has("--verbose"))
        #expect(
            Self.usageMessage(["--verbose=loud"])
                == "--verbose takes no value, got \"loud\" (use --verbose or --verbose=false)")
    }

    @Test func strayShortOptionsAndUnknownOptionsAreErrors() {
        #expect(Self.usageMessage(["p", "-n", "5"]) == "unknown option -n")
        #expect(Self.usageMessage(["--bogus=1"]) == "unknown option --bogus")
        #expect(Self.usageMessage(["--limit"]) == "--limit needs a value")
    }

    @Test func valuesMayStartWithADashAndDoubleDashEndsTheOptions() throws {
        let reader = try ArgumentReader(["--limit", "-1", "--", "-n", "--verbose"], command: Self.command)
        #expect(reader.value("--limit") == "-1")
        #expect(reader.positionals == ["-n", "--verbose"])
        #expect(!reader.has("--verbose"))
        #expect(try ArgumentReader(["-"], command: Self.command).positionals == ["-"])
    }

    @Test func anOptionalValueIsOnlyTakenAfterEquals() throws {
        let reader = try ArgumentReader(["--replay", "file.json"], command: Self.command)
        #expect(reader.has("--replay"))
        #expect(reader.value("--replay") == nil)
        #expect(reader.positionals == ["file.json"])
    }

    @Test func theHelpIsGeneratedFromTheSameTable() {
        #expect(
            Self.command.help == """
                USAGE: firestore-feed try PATH [options]

                A command for the tests.

                OPTIONS:
                  --limit N                  at most N
                  --where 'FIELD OP VALUE'   filter (repeatable)
                                             second line
                  --verbose                  say more
                  --replay [FILE]            replay FILE
                  -h, --help                 show this help
                """)
    }

    @Test func aWideSynopsisPutsItsDescriptionOnTheNextLine() {
        let option = OptionSpec.value("--a-very-long-option-name", "PLACEHOLDER", help: "what it does")
        #expect(
            option.helpText == "  --a-very-long-option-name PLACEHOLDER\n" + String(repeating: " ", count: 29)
                + "what it does")
    }
}
