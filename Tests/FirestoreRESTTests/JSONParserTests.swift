import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreWire

@Suite("JSON parser", .timeLimit(.minutes(2)))
struct JSONParserTests {
    // MARK: Scalars and numbers

    @Test(arguments: [
        ("9223372036854775807", JSONValue.integer(9_223_372_036_854_775_807)),
        ("-9223372036854775808", .integer(-9_223_372_036_854_775_808)),
        ("0", .integer(0)),
        ("-0", .integer(0)),
        ("42", .integer(42)),
        ("-17", .integer(-17)),
        // One above Int64.max no longer fits: it becomes a double (2^63).
        ("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
        ("-9223372036854775809", .double(-9_223_372_036_854_775_808.0)),
        ("1.0", .double(1.0)),
        ("1.5", .double(1.5)),
        ("-0.25", .double(-0.25)),
        ("1e2", .double(100.0)),
        ("1E+2", .double(100.0)),
        ("25e-1", .double(2.5)),
        ("1e308", .double(1e308)),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("null", .null),
        ("\"\"", .string("")),
        (" \t\r\n 7 \n", .integer(7)),
    ])
    func parsesScalar(text: String, expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test func trueIsNotOne() throws {
        let parsed = try JSONValue.parse("[true,1,false,0]")
        #expect(parsed == .array([.bool(true), .integer(1), .bool(false), .integer(0)]))
        #expect(try JSONValue.parse("true") != .integer(1))
        #expect(try JSONValue.parse("1") != .bool(true))
    }

    @Test func parsesNestedStructures() throws {
        let parsed = try JSONValue.parse(#"{"a":[1,{"b":null}],"c":{},"d":[],"e":"x"}"#)
        let expected: JSONValue = .object([
            "a": .array([.integer(1), .object(["b": .null])]),
            "c": .object([:]),
            "d": .array([]),
            "e": .string("x"),
        ])
        #expect(parsed == expected)
    }

    /// `é` (U+00E9) and `e` + U+0301 are different keys byte for byte (Firestore compares field names as
    /// bytes), but a Swift `String` dictionary treats them as one key; a duplicate key is refused so that no
    /// member is silently lost.
    // .bug("JSONValue.object keys use Swift String equality (canonical equivalence): NFC and NFD keys merge")
    /// Swift `String` keys compare by canonical equivalence, so `é` (U+00E9) and `e` + U+0301 cannot both be
    /// keys of one dictionary: the parser refuses such an object instead of silently dropping a value.
    @Test func canonicallyEquivalentKeysAreRefusedNotMerged() throws {
        #expect(
            throws: JSONParseError(
                reason: "duplicate object key \"\u{E9}\" (or a canonically equivalent spelling)", offset: 12)
        ) { try JSONValue.parse(#"{"\u00e9":1,"e\u0301":2}"#) }
        #expect(
            throws: JSONParseError(
                reason: "duplicate object key \"a\" (or a canonically equivalent spelling)", offset: 8)
        ) { try JSONValue.parse(#"{"a":1, "a":2}"#) }
    }

    @Test func decomposedKeyKeepsItsBytes() throws {
        let parsed = try JSONValue.parse(#"{"e\u0301":1}"#)
        #expect(parsed.serialized() == Data([0x7B, 0x22, 0x65, 0xCC, 0x81, 0x22, 0x3A, 0x31, 0x7D]))
    }

    // MARK: Strings and escapes

    @Test(arguments: [
        (#""a\"b""#, "a\"b"),
        (#""back\\slash""#, "back\\slash"),
        (#""sl\/ash""#, "sl/ash"),
        (#""\b\f\n\r\t""#, "\u{08}\u{0C}\n\r\t"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\u0000""#, "\u{0}"),
        (#""\ud83d\ude00""#, "😀"),
        (#""x\uD83D\uDE00y""#, "x😀y"),
        (#""ü raw""#, "ü raw"),
        (#""😀 raw""#, "😀 raw"),
        (#""mixed ü \n 😀""#, "mixed ü \n 😀"),
    ])
    func parsesStringEscapes(text: String, expected: String) throws {
        #expect(try JSONValue.parse(text) == .string(expected))
    }

    // MARK: Errors carry the byte offset

    @Test(arguments: [
        (#"{"a":}"#, 5),
        ("", 0),
        ("   ", 3),
        ("[1,]", 3),
        ("[1 2]", 3),
        ("[", 1),
        (#"{"a" 1}"#, 5),
        ("{1:2}", 1),
        (#"{"a":1,}"#, 7),
        (#"{"a":1} x"#, 8),
        ("[1] ]", 4),
        ("truex", 4),
        ("01", 1),
        ("tru", 0),
        ("nul", 0),
        ("-", 0),
        ("1.", 0),
        ("1e", 0),
        ("+1", 0),
        (".5", 0),
        (#""abc"#, 0),
        (#""a\qb""#, 2),
        (#""\u12G4""#, 5),
        (#""\ud83d""#, 7),
        (#""\ude00""#, 7),
        (#""\ud83d\u0041""#, 13),
        ("\"a\nb\"", 2),
        ("'a'", 0),
        ("NaN", 0),
    ])
    func reportsErrorOffset(text: String, offset: Int) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        #expect(error?.offset == offset)
    }

    @Test func errorDescriptionNamesOffset() {
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(#"{"a":}"#) }
        #expect(error?.description.hasPrefix("invalid JSON at byte 5: ") == true)
    }

    // MARK: Depth limit

    @Test func nestingOf512IsAccepted() throws {
        let text = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let parsed = try JSONValue.parse(text)
        #expect(parsed.arrayValue?.count == 1)
    }

    @Test func arrayNestedDeeperThan512IsAnError() {
        let text = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        // The 513th "[" (byte 512) is one level too deep.
        #expect(error?.offset == 512)
    }

    @Test func objectNestedDeeperThan512IsAnError() {
        let text = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        // Each `{"a":` is 5 bytes; the 513th `{` starts at byte 512 * 5.
        #expect(error?.offset == 2560)
    }

    @Test func hugeNestingDoesNotCrash() {
        let text = String(repeating: "[", count: 100_000)
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        #expect(error?.offset == 512)
    }

    // MARK: Invalid UTF-8

    @Test(
        arguments: [
            ([0x22, 0xFF, 0x22], 0),  // "\xFF"
            ([0x22, 0xC0, 0x80, 0x22], 0),  // overlong NUL
            ([0x22, 0xE2, 0x82, 0x22], 0),  // truncated 3-byte sequence
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 0),  // encoded surrogate D800
            ([0x5B, 0x22, 0x5C, 0x6E, 0xFF, 0x22, 0x5D], 1),  // ["\n\xFF"] (slow path after an escape)
            ([0xFF], 0),  // outside a string
        ] as [([UInt8], Int)])
    func rejectsInvalidUTF8(bytes: [UInt8], offset: Int) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(bytes)) }
        #expect(error?.offset == offset)
    }

    @Test func acceptsValidMultibyteUTF8() throws {
        let bytes: [UInt8] = [0x22, 0xC3, 0xBC, 0xF0, 0x9F, 0x98, 0x80, 0x22]
        #expect(try JSONValue.parse(Data(bytes)) == .string("ü😀"))
    }

    // MARK: Accessors

    @Test func accessors() throws {
        let value = try JSONValue.parse(#"{"s":"x","a":[1],"o":{"k":true}}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["a"]?.arrayValue == [.integer(1)])
        #expect(value["o"]?.objectValue == ["k": .bool(true)])
        #expect(value["missing"] == nil)
        #expect(JSONValue.integer(1)["k"] == nil)
        #expect(value.typeName == "object")
        #expect(JSONValue.double(1).typeName == "number")
        #expect(JSONValue.integer(1).typeName == "number")
        #expect(JSONValue.bool(true).typeName == "boolean")
        #expect(JSONValue.null.typeName == "null")
    }
}

@Suite("JSON writer", .timeLimit(.minutes(2)))
struct JSONWriterTests {
    @Test func sortsObjectKeys() {
        let value: JSONValue = ["zeta": 1, "alpha": 2, "Beta": 3, "_u": 4, "a": ["y": true, "x": false]]
        #expect(value.serializedString() == #"{"Beta":3,"_u":4,"a":{"x":false,"y":true},"alpha":2,"zeta":1}"#)
    }

    @Test func escapesStrings() {
        let value = JSONValue.string("q\"b\\n\nr\rt\tb\u{08}f\u{0C}c\u{01}\u{1F}/é😀")
        #expect(value.serializedString() == #""q\"b\\n\nr\rt\tb\bf\fc\u0001\u001f/é😀""#)
    }

    @Test(arguments: [
        (JSONValue.double(7_190_000.0), "7190000.0"),
        (.double(1e308), "1e+308"),
        (.double(1.5), "1.5"),
        (.double(0.0), "0.0"),
        (.double(-0.0), "-0.0"),
        (.double(0.1), "0.1"),
        (.double(-122.25), "-122.25"),
        (.double(1e16), "1e+16"),
        (.double(.nan), "null"),
        (.double(.infinity), "null"),
        (.integer(9_223_372_036_854_775_807), "9223372036854775807"),
        (.integer(-9_223_372_036_854_775_808), "-9223372036854775808"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.null, "null"),
        (.array([]), "[]"),
        (.object([:]), "{}"),
        (.array([.integer(1), .string("a"), .null]), #"[1,"a",null]"#),
    ])
    func writesCompact(value: JSONValue, expected: String) {
        #expect(value.serializedString() == expected)
    }

    @Test func writtenDoublesParseBackExactly() throws {
        for text in ["7190000.0", "1e+308", "0.1", "-122.25", "1e+16", "5e-324"] {
            let parsed = try JSONValue.parse(text)
            #expect(parsed.serializedString() == text)
        }
    }

    @Test func writesPretty() {
        let value: JSONValue = ["b": [1, 2], "a": ["k": "v"], "c": [], "d": [:]]
        let expected = """
            {
              "a": {
                "k": "v"
              },
              "b": [
                1,
                2
              ],
              "c": [],
              "d": {}
            }
            """
        #expect(value.serializedString(pretty: true) == expected)
    }

    @Test func serializedIsUTF8Data() {
        let value: JSONValue = ["ü": "😀"]
        #expect(value.serialized() == Data(#"{"ü":"😀"}"#.utf8))
    }

    @Test func roundTripsThroughParser() throws {
        let text = #"{"a":[1,-2,3.5,"x\"y",true,false,null,{}],"b":{"c":9223372036854775807}}"#
        #expect(try JSONValue.parse(text).serializedString() == text)
    }
}
