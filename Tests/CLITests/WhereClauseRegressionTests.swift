import FirestoreFeedCLI
import FirestoreREST
import Testing

/// Inputs found by fuzzing the CLI's `--where` parser (`Scripts/fuzz WhereClauseParser`), written out, and the
/// other delimiters of the same kind: a backtick, comma or quote followed by a combining mark is one Swift
/// `Character` but still a delimiter, so the CLI's little parsers read Unicode scalars.
@Suite(.timeLimit(.minutes(2))) struct WhereClauseRegressionTests {
    /// The fuzzer's input (`Fuzz` crash 06b30a17): it parsed, but its field written back in quoted form
    /// (`` `֠۠_` ``) did not: the backtick and the marks after it form one `Character`, so the quote never
    /// opened, the closing backtick opened one instead and swallowed the rest of the clause.
    @Test func fuzzInputParsesAgainFromItsQuotedField() throws {
        let input = "\u{05A0}\u{06E0}_ == \"\\re\""
        let clause = try WhereClause(parsing: input)
        #expect(clause.field.segments == ["\u{05A0}\u{06E0}_"])
        #expect(clause.field.description == "`\u{05A0}\u{06E0}_`")
        #expect(clause.op == .equal)
        #expect(clause.value == .string("\re"))
        let again = try WhereClause(parsing: "`\u{05A0}\u{06E0}_` == \"\\re\"")
        #expect(again == clause)
    }

    @Test func backtickBeforeACombiningMarkQuotesASpace() throws {
        let clause = try WhereClause(parsing: "`\u{301}a b`.c >= 2")
        #expect(clause.field.segments == ["\u{301}a b", "c"])
        #expect(clause.op == .greaterThanOrEqual)
        #expect(clause.value == .integer(2))
    }

    /// A string opening with a combining mark is still a string, not an oversized integer literal.
    @Test func quoteBeforeACombiningMarkStillOpensAString() throws {
        let clause = try WhereClause(parsing: "code == \"\u{301}99999999999999999999\"")
        #expect(clause.value == .string("\u{301}99999999999999999999"))
        #expect(
            throws: FirestoreError.invalidArgument(
                "--where \"n == 99999999999999999999\": the integer 99999999999999999999 does not fit in 64 bits")
        ) {
            try WhereClause(parsing: "n == 99999999999999999999")
        }
    }

    @Test func commaBeforeACombiningMarkStillSplitsFields() {
        #expect(FieldPathArgument.splitFields("a,\u{301}b,`c,\u{301}d`") == ["a", "\u{301}b", "`c,\u{301}d`"])
    }

    @Test func backtickBeforeACombiningMarkStillQuotesAColon() {
        #expect(FieldPathArgument.hasUnquoted(in: "`\u{301}a:b`", where: { $0 == ":" }) == false)
        #expect(FieldPathArgument.hasUnquoted(in: "\u{301}a:b", where: { $0 == ":" }) == true)
    }
}
