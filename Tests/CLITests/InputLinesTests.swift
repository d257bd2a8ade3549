import FirestoreFeedCLI
import FirestoreREST
import Foundation
import Testing

/// `import`'s line reader (`InputLines`): lines split across chunks, and a line over the maximum refused after
/// no more than the maximum and one chunk are read, whatever follows it. The maximum and the chunk size are
/// lowered so that a few bytes show what 32 MiB and 64 KiB do.
@Suite(.timeLimit(.minutes(2))) struct InputLinesTests {
    /// A file holding `text`, removed when the test ends (`defer`).
    struct InputFixture {
        let url: URL
        let handle: FileHandle

        init(_ text: String) throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "cli-lines-\(UUID().uuidString).jsonl")
            try Data(text.utf8).write(to: url)
            handle = try FileHandle(forReadingFrom: url)
        }

        func remove() {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// Every line of `lines` as text with its number, until the end or the first error.
    static func readAll(_ lines: inout InputLines) throws -> [String] {
        var read: [String] = []
        while let line = try lines.next() { read.append("\(lines.number):" + String(decoding: line, as: UTF8.self)) }
        return read
    }

    @Test func splitsLinesAcrossChunks() throws {
        let input = try InputFixture("ab\n\ncd\r\nlast")
        defer { input.remove() }
        var lines = InputLines(reading: input.handle, name: "in.jsonl", maximumLength: 100, chunkSize: 3)
        #expect(try Self.readAll(&lines) == ["1:ab", "2:", "3:cd\r", "4:last"])
        #expect(try lines.next() == nil)
    }

    @Test func anInputEndingInALineBreakHasNoEmptyLineAfterIt() throws {
        let input = try InputFixture("a\n")
        defer { input.remove() }
        var lines = InputLines(reading: input.handle, name: "in.jsonl", maximumLength: 100, chunkSize: 1)
        #expect(try Self.readAll(&lines) == ["1:a"])
        let empty = try InputFixture("")
        defer { empty.remove() }
        var none = InputLines(reading: empty.handle, name: "in.jsonl", maximumLength: 100)
        #expect(try Self.readAll(&none) == [])
    }

    /// A line of exactly the maximum is read; one byte more is refused, naming the line.
    @Test func aLineOverTheMaximumIsRefused() throws {
        let input = try InputFixture("12345678\n123456789\nnot read\n")
        defer { input.remove() }
        var lines = InputLines(reading: input.handle, name: "in.jsonl", maximumLength: 8, chunkSize: 4)
        #expect(try lines.next().map { String(decoding: $0, as: UTF8.self) } == "12345678")
        #expect(
            throws: FirestoreError.invalidArgument(
                "in.jsonl:2: the line is longer than 8 bytes, the most import takes for one document")
        ) { try lines.next() }
    }

    /// The last line, without a line break, is held to the same maximum.
    @Test func aLastLineWithoutALineBreakOverTheMaximumIsRefused() throws {
        let input = try InputFixture("ok\n123456789")
        defer { input.remove() }
        var lines = InputLines(reading: input.handle, name: "standard input", maximumLength: 8, chunkSize: 64)
        #expect(try lines.next().map { String(decoding: $0, as: UTF8.self) } == "ok")
        #expect(
            throws: FirestoreError.invalidArgument(
                "standard input:2: the line is longer than 8 bytes, the most import takes for one document")
        ) { try lines.next() }
    }

    /// A line with no end (a file without line breaks) is read no further than the maximum and one chunk: the
    /// first chunk (`ok\nx`) and four more, when the line's 17 bytes are over the maximum of 16.
    @Test func aRunawayLineIsReadNoFurtherThanTheMaximum() throws {
        let input = try InputFixture("ok\n" + String(repeating: "x", count: 10_000))
        defer { input.remove() }
        var lines = InputLines(reading: input.handle, name: "in.jsonl", maximumLength: 16, chunkSize: 4)
        #expect(try lines.next().map { String(decoding: $0, as: UTF8.self) } == "ok")
        #expect(
            throws: FirestoreError.invalidArgument(
                "in.jsonl:2: the line is longer than 16 bytes, the most import takes for one document")
        ) { try lines.next() }
        #expect(try input.handle.offset() == 20)
    }
}
