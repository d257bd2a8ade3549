import FirestoreFeedCLI
import Testing

/// `OutputLineBatch`: how `Console.output(lines:)` gathers a query's lines into writes.
@Suite(.timeLimit(.minutes(1))) struct OutputLineBatchTests {
    static func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    @Test func linesFillABatchUpToItsLimitAndTheNextLineStartsAnother() {
        var batch = OutputLineBatch(limit: 10)
        #expect(batch.add("abcd") == nil)
        // 5 + 5 bytes: exactly the limit, still one batch.
        #expect(batch.add("efgh") == nil)
        #expect(Self.text(batch.add("i")) == "abcd\nefgh\n")
        #expect(Self.text(batch.add("")) == nil)
        #expect(Self.text(batch.finish()) == "i\n\n")
        #expect(batch.finish() == nil)
    }

    @Test func aLineLongerThanTheLimitIsABatchOfItsOwn() {
        var batch = OutputLineBatch(limit: 10)
        #expect(Self.text(batch.add("ab")) == nil)
        #expect(Self.text(batch.add("0123456789abc")) == "ab\n")
        #expect(Self.text(batch.add("z")) == "0123456789abc\n")
        #expect(Self.text(batch.finish()) == "z\n")
    }

    @Test func bytesAreUTF8AndNothingIsSplitOrReordered() {
        var batch = OutputLineBatch(limit: 16)
        var written: [UInt8] = []
        let lines = (0..<100).map { "é\($0)→" + String(repeating: "x", count: $0 % 7) }
        for line in lines {
            if let full = batch.add(line) {
                #expect(full.count <= 16)
                #expect(full.last == UInt8(ascii: "\n"))
                written += full
            }
        }
        written += batch.finish() ?? []
        #expect(String(decoding: written, as: UTF8.self) == lines.map { $0 + "\n" }.joined())
    }
}
