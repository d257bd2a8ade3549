import FirestoreFeedCLI
import FirestoreREST
import Testing

/// A malformed `--where` clause, or another query option, as long as a command line allows: the error quotes at
/// most its first 80 characters, then how many it left out, never the whole value.
@Suite(.timeLimit(.minutes(2))) struct LongValueMessageTests {
    /// `count` copies of `text`.
    static func many(_ text: String, _ count: Int) -> String { String(repeating: text, count: count) }

    /// A 1,000,000-character clause, or part of one, in each of the `--where` parser's errors.
    @Test(arguments: [
        (
            "name==" + many("a", 1_000_000),
            "--where \"name==" + many("a", 74) + "…\" (999926 more characters): expected 'FIELD OP VALUE' with "
                + "spaces around OP, e.g. 'name == \"Apple\"'"
        ),
        (
            "a " + many("~", 1_000_000) + " 1",
            "--where \"a " + many("~", 78) + "…\" (999924 more characters): unknown operator \"" + many("~", 80)
                + "…\" (999920 more characters) (use one of < <= > >= == != array-contains array-contains-any in "
                + "not-in)"
        ),
        (
            "name == " + many("a", 1_000_000),
            "--where \"name == " + many("a", 72) + "…\" (999928 more characters): VALUE is not JSON (invalid JSON "
                + "at byte 0: unexpected character); a string needs JSON quotes: '\"" + many("a", 80)
                + "…\"' (999920 more characters)"
        ),
        (
            "n == " + many("9", 1_000_000),
            "--where \"n == " + many("9", 75) + "…\" (999925 more characters): VALUE is not JSON (invalid JSON at "
                + "byte 0: number out of the range of a double)"
        ),
        (
            "n == " + many("9", 300),
            "--where \"n == " + many("9", 75) + "…\" (225 more characters): the integer " + many("9", 80)
                + "… (220 more characters) does not fit in 64 bits"
        ),
        (
            many("a", 1_000_000) + ".. == 1",
            "--where \"" + many("a", 80) + "…\" (999927 more characters): invalid field path \"" + many("a", 80)
                + "…\" (999922 more characters) at byte 1000001: empty segment"
        ),
    ])
    func whereErrorsQuoteAtMost80Characters(clause: String, message: String) {
        #expect(throws: FirestoreError.invalidArgument(message)) { try WhereClause(parsing: clause) }
    }

    /// A clause of 80 characters or fewer is quoted whole, as before.
    @Test func aShortClauseIsQuotedWhole() {
        #expect(
            throws: FirestoreError.invalidArgument(
                "--where \"name == Apple\": VALUE is not JSON (invalid JSON at byte 0: unexpected character); a "
                    + "string needs JSON quotes: '\"Apple\"'")
        ) { try WhereClause(parsing: "name == Apple") }
    }

    /// The other query options that quote their value, through `query`'s parsing.
    @Test(arguments: [
        (
            ["c", "--order-by", many("a", 1_000_000) + ":up"],
            "--order-by \"" + many("a", 80) + "…\" (999923 more characters): use FIELD, FIELD:asc or FIELD:desc (a "
                + "field name with ':' or spaces goes in backticks)"
        ),
        (
            ["c", "--order-by", many("a", 1_000_000) + "..b"],
            "--order-by \"" + many("a", 80) + "…\" (999923 more characters): invalid field path \"" + many("a", 80)
                + "…\" (999923 more characters) at byte 1000001: empty segment"
        ),
        (
            ["c", "--start-at", many("x", 1_000_000)],
            "--start-at \"" + many("x", 80) + "…\" (999920 more characters): not comma-separated JSON values "
                + "(invalid JSON at byte 1: unexpected character)"
        ),
        (
            ["c", "--end-before", "1," + many("9", 300)],
            "--end-before \"1," + many("9", 78) + "…\" (222 more characters): the integer " + many("9", 80)
                + "… (220 more characters) does not fit in 64 bits"
        ),
        (
            ["c", "--select", "a,," + many("b", 1_000_000)],
            "--select \"a,," + many("b", 77) + "…\" (999923 more characters): invalid field path \"\" at byte 0: "
                + "empty segment"
        ),
        (
            ["c", "--limit", many("1", 1_000_000)],
            "--limit \"" + many("1", 80) + "…\" (999920 more characters): expected a whole number from 0 to "
                + "2147483647"
        ),
        (
            ["c", "d", "--where", "a"],
            "query needs exactly one COLLECTION_PATH, got 2 (c d)"
        ),
        (
            ["c", many("d", 1_000_000), "--where", "a"],
            "query needs exactly one COLLECTION_PATH, got 2 (c " + many("d", 78) + "…) (999922 more characters)"
        ),
    ])
    func queryOptionErrorsQuoteAtMost80Characters(arguments: [String], message: String) {
        #expect(ValidationTests.parseError(QueryCommand.self, arguments) == message)
    }
}
