import Foundation
import Testing

@testable import FirestoreREST

/// A JSON array cut into its elements however its bytes are split into chunks.
@Suite(.timeLimit(.minutes(2))) struct JSONArrayStreamSplitterTests {
    static let body = #" [ {"a":"x,]}\"{["} , [1,[2]] ,3, "s\\" ,{"e":{}} ] "#
    static let elements = [#"{"a":"x,]}\"{["}"#, "[1,[2]]", "3", #""s\\""#, #"{"e":{}}"#]

    static func split(_ text: String, chunk: Int) throws -> ([String], [UInt8]?) {
        var splitter = JSONArrayStreamSplitter()
        var found: [String] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            try splitter.feed(bytes[start..<end]) { found.append(String(decoding: $0, as: UTF8.self)) }
            start = end
        }
        return (found, try splitter.finish())
    }

    @Test(arguments: [1, 2, 3, 5, 7, 64])
    func everyChunkingGivesTheSameElements(chunk: Int) throws {
        let (found, whole) = try Self.split(Self.body, chunk: chunk)
        #expect(found == Self.elements)
        #expect(whole == nil)
    }

    @Test func anEmptyArrayHasNoElements() throws {
        let (found, whole) = try Self.split(" [ ] \n", chunk: 1)
        #expect(found == [])
        #expect(whole == nil)
    }

    @Test func aBodyThatIsNotAnArrayComesBackWhole() throws {
        let (found, whole) = try Self.split(#"{"error":{"code":7}}"#, chunk: 3)
        #expect(found == [])
        #expect(whole.map { String(decoding: $0, as: UTF8.self) } == #"{"error":{"code":7}}"#)
    }

    @Test(arguments: [
        (#"[{"a":1}"#, "invalid JSON at byte 8: unexpected end of input in an array"),
        ("", "invalid JSON at byte 0: the body is empty"),
        ("[1] x", "invalid JSON at byte 4: data after the end of the array"),
    ])
    func brokenBodiesNameTheirOffset(text: String, message: String) {
        #expect(throws: FirestoreError(code: .internal, message: message)) {
            _ = try Self.split(text, chunk: 2)
        }
    }
}
