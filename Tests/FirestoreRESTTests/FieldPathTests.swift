import Foundation
import Testing

@testable import FirestoreREST

@Suite("FieldPath", .timeLimit(.minutes(2)))
struct FieldPathTests {
    // MARK: Quoting one segment

    @Test(arguments: [
        ("_0", "_0"),
        ("a", "a"),
        ("abc123", "abc123"),
        ("ABC_def", "ABC_def"),
        ("__name__", "__name__"),
        ("1", "`1`"),
        ("+2", "`+2`"),
        ("a.b", "`a.b`"),
        ("123abc", "`123abc`"),
        ("spam-eggs", "`spam-eggs`"),
        ("a b", "`a b`"),
        ("é", "`é`"),
        ("*", "`*`"),
        ("`", #"`\``"#),
        (#"\"#, #"`\\`"#),
        (#"a`b\c"#, #"`a\`b\\c`"#),
        ("a/b", "`a/b`"),
    ])
    func quotesSegment(segment: String, expected: String) {
        #expect(FieldPath.quoteSegment(segment) == expected)
    }

    /// A backtick or backslash followed by a combining mark is one `Character` in Swift but must still be
    /// escaped: the server reads the path byte by byte.
    // .bug("FieldPath.quoteSegment escapes per Character, so a backtick/backslash joined with a combining mark is not escaped")
    @Test(arguments: [
        ("`\u{301}", "`\\`\u{301}`"),
        ("\\\u{301}", "`\\\\\u{301}`"),
        ("x`\u{308}y", "`x\\`\u{308}y`"),
    ])
    func quotesBacktickFollowedByCombiningMark(segment: String, expected: String) throws {
        #expect(FieldPath.quoteSegment(segment) == expected)
        // and the quoted form parses back to the same segment
        #expect(try FieldPath(quoted: FieldPath.quoteSegment(segment)).segments == [segment])
    }

    // MARK: Whole paths

    /// Field case D-24: top-level `123abc`, `spam-eggs`, `a.b` (literal) and nested `profile.age`.
    @Test func fieldCaseD24() throws {
        let paths = [
            try FieldPath(["123abc"]), try FieldPath(["spam-eggs"]), try FieldPath(["a.b"]),
            try FieldPath(["profile", "age"]),
        ]
        #expect(paths.map(\.description) == ["`123abc`", "`spam-eggs`", "`a.b`", "profile.age"])
        #expect(paths.map(\.description).joined(separator: ", ") == "`123abc`, `spam-eggs`, `a.b`, profile.age")
    }

    @Test(arguments: [
        (["_0"], "_0"),
        (["1"], "`1`"),
        (["+2"], "`+2`"),
        (["*", "`"], #"`*`.`\``"#),
        (["a.b"], "`a.b`"),
        (["a", "b"], "a.b"),
        (["profile", "age"], "profile.age"),
        (["a", "b.c", "d"], "a.`b.c`.d"),
        (["m", "c`d"], #"m.`c\`d`"#),
        (["__name__"], "__name__"),
    ])
    func describes(segments: [String], expected: String) throws {
        #expect(try FieldPath(segments).description == expected)
    }

    // MARK: Parsing the quoted form

    @Test(arguments: [
        ("_0", ["_0"]),
        ("`1`", ["1"]),
        ("`+2`", ["+2"]),
        ("`a.b`", ["a.b"]),
        ("`123abc`", ["123abc"]),
        ("`spam-eggs`", ["spam-eggs"]),
        ("profile.age", ["profile", "age"]),
        (#"`*`.`\``"#, ["*", "`"]),
        (#"`\``"#, ["`"]),
        (#"`\\`"#, ["\\"]),
        (#"m.`c\`d`"#, ["m", "c`d"]),
        ("a.`b.c`.d", ["a", "b.c", "d"]),
        ("__name__", ["__name__"]),
        ("`é`.x", ["é", "x"]),
    ])
    func parsesQuoted(text: String, expected: [String]) throws {
        #expect(try FieldPath(quoted: text).segments == expected)
    }

    @Test(arguments: [
        ["123abc"], ["spam-eggs"], ["a.b"], ["profile", "age"], ["`"], ["\\"], ["a`b\\c", "d.e"], ["ü 😀", "x"],
        ["__name__"], ["_0", "1", "+2"],
    ])
    func quotedFormRoundTrips(segments: [String]) throws {
        let path = try FieldPath(segments)
        #expect(try FieldPath(quoted: path.description).segments == segments)
        #expect(try FieldPath(quoted: path.description) == path)
    }

    @Test(arguments: ["", "a..b", ".a", "a.", "`abc", "`a`b", "``", "`a`.", #"`a\"#])
    func quotedRejects(text: String) {
        let error = #expect(throws: FirestoreError.self) { try FieldPath(quoted: text) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func quotedErrorNamesByteOffset() {
        let error = #expect(throws: FirestoreError.self) { try FieldPath(quoted: "`a`b") }
        #expect(error?.message.contains("at byte 3") == true)
    }

    // MARK: Dotted form

    @Test(arguments: [
        ("a", ["a"]),
        ("a.b.c", ["a", "b", "c"]),
        ("profile.age", ["profile", "age"]),
        ("123abc", ["123abc"]),
        ("spam-eggs", ["spam-eggs"]),
        ("__name__", ["__name__"]),
    ])
    func parsesDotted(text: String, expected: [String]) throws {
        #expect(try FieldPath(dotted: text).segments == expected)
    }

    @Test(arguments: ["", "a..b", ".a", "a.", "."])
    func dottedRejects(text: String) {
        let error = #expect(throws: FirestoreError.self) { try FieldPath(dotted: text) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func segmentsInitRejectsEmpty() {
        #expect(throws: FirestoreError.self) { try FieldPath([]) }
        #expect(throws: FirestoreError.self) { try FieldPath(["a", ""]) }
        #expect(throws: FirestoreError.self) { try FieldPath([""]) }
    }

    @Test func documentID() throws {
        #expect(FieldPath.documentID.segments == ["__name__"])
        #expect(FieldPath.documentID.description == "__name__")
        #expect(FieldPath.documentID.isDocumentID)
        #expect(try FieldPath(dotted: "__name__").isDocumentID)
        #expect(try !FieldPath(["a", "__name__"]).isDocumentID)
    }

    @Test func literalDotDiffersFromNesting() throws {
        #expect(try FieldPath(["a.b"]) != FieldPath(["a", "b"]))
        #expect(try FieldPath(dotted: "a.b") == FieldPath(["a", "b"]))
    }
}
