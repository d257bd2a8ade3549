import FirestoreFeedCLI
import FirestoreREST
import Testing

/// The plain-JSON value rules of `set`, `update`, `create`, `add` and `import`'s `data` (`PlainJSONArgument`),
/// the same as `--where`'s VALUE.
@Suite(.timeLimit(.minutes(2))) struct PlainJSONArgumentTests {
    @Test func everyJSONTypeMapsToItsFirestoreValue() throws {
        let fields = try PlainJSONArgument.fields(
            #"{"i":3,"d":3.0,"e":1e2,"s":"x","b":true,"n":null,"a":[1,"two"],"m":{"k":-9223372036854775808}}"#,
            what: "set c/d")
        #expect(
            fields == [
                "i": .integer(3), "d": .double(3), "e": .double(100), "s": .string("x"), "b": .boolean(true),
                "n": .null, "a": .array([.integer(1), .string("two")]), "m": .map(["k": .integer(Int64.min)]),
            ])
    }

    @Test(arguments: [
        (#"{"n":9223372036854775808}"#, "set c/d: the integer 9223372036854775808 does not fit in 64 bits"),
        ("[1]", #"set c/d: expected a JSON object of fields, e.g. '{"name":"Apple"}'"#),
        (
            "name",
            #"set c/d: not JSON (invalid JSON at byte 0: invalid literal); expected a JSON object of fields, e.g. '{"name":"Apple"}'"#
        ),
        (
            #"{"a":1,"a":2}"#,
            #"set c/d: not JSON (invalid JSON at byte 7: duplicate object key "a" (or a canonically equivalent spelling))"#
        ),
        ("{", "set c/d: not JSON (invalid JSON at byte 1: expected a string key)"),
    ])
    func badFieldsAreRefusedWithWhatWasWrong(text: String, message: String) {
        let error = #expect(throws: FirestoreError.self) { try PlainJSONArgument.fields(text, what: "set c/d") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == message)
    }

    @Test func aBareWordHintsAtQuotes() {
        let error = #expect(throws: FirestoreError.self) { try PlainJSONArgument.value("Apple", what: "VALUE") }
        #expect(
            error?.message
                == #"VALUE: not JSON (invalid JSON at byte 0: unexpected character); a string needs JSON quotes: '"Apple"'"#
        )
    }
}
