import Testing

@testable import FirestoreREST

/// How error messages quote a value from outside (`MessageQuote`): whole up to 80 characters, cut after them with
/// how many were left out, control characters written out where asked; and the library's messages that quote a
/// value of any length (field paths, JSON object keys).
@Suite(.timeLimit(.minutes(2))) struct MessageQuoteTests {
    @Test func aShortValueIsQuotedWhole() {
        #expect(MessageQuote.quoted("name == 1") == #""name == 1""#)
        #expect(MessageQuote.quoted("") == #""""#)
        #expect(
            MessageQuote.quoted(String(repeating: "a", count: 80)) == "\"" + String(repeating: "a", count: 80) + "\"")
    }

    @Test func aLongValueIsCutAfter80Characters() {
        let eighty = String(repeating: "a", count: 80)
        #expect(MessageQuote.quoted(eighty + "b") == "\"" + eighty + "…\" (1 more character)")
        #expect(
            MessageQuote.quoted(String(repeating: "a", count: 1_000_000))
                == "\"" + eighty + "…\" (999920 more characters)")
        #expect(
            MessageQuote.quoted(eighty + "bc", open: "'\"", close: "\"'") == "'\"" + eighty + "…\"' (2 more characters)"
        )
        #expect(MessageQuote.quoted(eighty + "bc", open: "", close: "") == eighty + "… (2 more characters)")
    }

    /// Characters are counted as Swift counts them: an `e` and a combining acute accent are one, never split.
    @Test func aCharacterOfSeveralScalarsIsNotSplit() {
        let accented = String(repeating: "e\u{301}", count: 81)
        #expect(
            MessageQuote.quoted(accented) == "\"" + String(repeating: "e\u{301}", count: 80) + "…\" (1 more character)")
    }

    @Test func controlCharactersAreWrittenOut() {
        #expect(MessageQuote.visible("a\u{0}b") == #"a\u{0}b"#)
        #expect(MessageQuote.visible("\u{1B}[31m\u{7F}\u{85}\t\n") == #"\u{1B}[31m\u{7F}\u{85}\u{9}\u{A}"#)
        #expect(MessageQuote.visible(#"a\u{0}"#) == #"a\\u{0}"#)
        #expect(MessageQuote.visible("é😀 \"x\"") == "é😀 \"x\"")
        #expect(MessageQuote.quoted("a\u{0}b", escapingControls: true) == #""a\u{0}b""#)
        #expect(
            MessageQuote.quoted(String(repeating: "\u{0}", count: 81), escapingControls: true)
                == "\"" + String(repeating: #"\u{0}"#, count: 80) + "…\" (1 more character)")
    }

    @Test func fieldPathMessagesQuoteAtMost80Characters() {
        let long = String(repeating: "a", count: 100) + ".."
        #expect(
            throws: FirestoreError.invalidArgument(
                "invalid field path \"" + String(repeating: "a", count: 80)
                    + "…\" (22 more characters) at byte 101: empty segment")
        ) { try FieldPath(quoted: long) }
        #expect(
            throws: FirestoreError.invalidArgument(
                "invalid field path \"" + String(repeating: "a", count: 80) + "…\" (22 more characters): empty segment")
        ) { try FieldPath(dotted: long) }
    }

    @Test func aDuplicateKeyIsQuotedAtMost80Characters() {
        let key = String(repeating: "k", count: 100)
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse("{\"\(key)\":1,\"\(key)\":2}") }
        #expect(
            error?.description
                == "invalid JSON at byte 106: duplicate object key \"" + String(repeating: "k", count: 80)
                + "…\" (20 more characters) (or a canonically equivalent spelling)")
    }
}
