import FirestoreFeedCLI
import FirestoreREST
import Foundation
import Testing

/// The writes `import` makes of a file's lines (`ImportCommand.writes(from:into:)`), before anything is sent:
/// a line over the maximum and a document ID holding NUL are errors naming FILE:LINE, as any bad line is.
@Suite(.timeLimit(.minutes(2))) struct ImportWritesTests {
    static func collection() throws -> CollectionReference {
        try Firestore.emulator(host: "127.0.0.1:1", projectID: "p").collection("c")
    }

    /// The writes of `text` read as `in.jsonl`, lines at most `maximumLength` bytes.
    static func writes(_ text: String, maximumLength: Int = ImportCommand.maximumLineLength) throws
        -> (writes: [Write], lines: [Int])
    {
        let input = try InputLinesTests.InputFixture(text)
        defer { input.remove() }
        var lines = InputLines(reading: input.handle, name: "in.jsonl", maximumLength: maximumLength)
        return try ImportCommand.writes(from: &lines, into: try collection())
    }

    /// 32 MiB: the JSON line of the largest document Firestore stores (about 23 MiB) fits.
    @Test func theMaximumIs32MiB() {
        #expect(ImportCommand.maximumLineLength == 33_554_432)
    }

    @Test func blankLinesAreSkippedAndNumbersKept() throws {
        let parsed = try Self.writes("{\"id\":\"a\",\"data\":{\"n\":1}}\n\n{\"id\":\"b\",\"data\":{\"n\":2}}\r\n")
        #expect(parsed.writes.count == 2)
        #expect(parsed.lines == [1, 3])
    }

    /// A line over the maximum is the error, as a bad line is: nothing is written (``writes(from:into:)`` returns
    /// nothing to commit), and the lines after it are not read.
    @Test func aLineOverTheMaximumNamesItsLine() throws {
        let long = "{\"id\":\"b\",\"data\":{\"s\":\"" + String(repeating: "x", count: 100) + "\"}}"
        #expect(
            throws: FirestoreError.invalidArgument(
                "in.jsonl:3: the line is longer than 64 bytes, the most import takes for one document")
        ) {
            try Self.writes("{\"id\":\"a\",\"data\":{\"n\":1}}\n\n" + long + "\nnot JSON\n", maximumLength: 64)
        }
    }

    /// A document ID with a NUL (`\u0000` in the line's JSON) is refused, naming the line, the ID and its path.
    @Test func aDocumentIDWithANulNamesItsLine() throws {
        #expect(
            throws: FirestoreError.invalidArgument(
                #"in.jsonl:2: invalid ID "a\u{0}b" at position 1 of path "c/a\u{0}b": "#
                    + "an ID cannot contain NUL (U+0000)")
        ) {
            try Self.writes(#"{"id":"ok","data":{}}"# + "\n" + #"{"id":"a\u0000b","data":{"n":1}}"# + "\n")
        }
    }
}
