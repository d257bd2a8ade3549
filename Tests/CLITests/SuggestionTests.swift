import FirestoreFeedCLI
import Testing

/// "Did you mean": the closest known words to a mistyped command or option.
@Suite(.timeLimit(.minutes(2))) struct SuggestionTests {
    static let commands = ["watch", "query", "get", "count", "set", "update", "create", "add", "delete", "help"]
    static let options = ["--order-by", "--limit", "--limit-to-last", "--start-at", "--start-after", "--where"]

    @Test(
        arguments: [
            ("wacth", commands, ["watch"]),
            ("qurey", commands, ["query"]),
            ("gte", commands, ["get"]),
            ("deleet", commands, ["delete"]),
            ("xyz", commands, []),
            ("--order", options, ["--order-by"]),
            ("--limt", options, ["--limit"]),
            ("--start", options, ["--start-at", "--start-after"]),
            ("--wehre", options, ["--where"]),
            ("--ordr", options, ["--order-by"]),
            ("--limt-to", options, ["--limit-to-last"]),
            ("--verbose", options, []),
        ] as [(String, [String], [String])])
    func closest(word: String, known: [String], expected: [String]) {
        #expect(Suggestion.closest(to: word, among: known) == expected)
    }

    @Test func hintListsOneOrSeveral() {
        #expect(Suggestion.hint(for: "wacth", among: Self.commands, quoted: true) == #" (did you mean "watch"?)"#)
        #expect(Suggestion.hint(for: "--start", among: Self.options) == " (did you mean --start-at or --start-after?)")
        #expect(Suggestion.hint(for: "xyz", among: Self.commands) == "")
    }
}
