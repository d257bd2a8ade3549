import Foundation
import Testing

@testable import FirestoreREST

/// Random runQuery bodies (`RunQueryBodyGenerator`, seeded) decode the same straight from the bytes as through
/// their JSON trees, and so do their mutations: truncations, replaced bytes, a duplicated or unknown member,
/// an `error` element, a value of the wrong type.
@Suite("runQuery decoding from bytes, differential", .timeLimit(.minutes(3)))
struct RunQueryBytesDifferentialTests {
    @Test(arguments: [false, true])
    func generatedBodies(pretty: Bool) throws {
        for seed in UInt64(1)...150 {
            var generator = RunQueryBodyGenerator(seed: seed, pretty: pretty)
            let body = generator.body(documents: generator.int(0...4))
            let response = try RunQueryPaths.expectSame(Data(body.utf8)).get()
            #expect(response.readTime != nil, "seed \(seed)")
        }
    }

    /// The generated elements are the common shape: the bytes decoder takes every one of them.
    @Test func generatedElementsTakeTheBytesPath() {
        for seed in UInt64(1)...100 {
            var generator = RunQueryBodyGenerator(seed: seed, pretty: seed % 2 == 0)
            let element = generator.object([("document", generator.document(indent: 1))], indent: 0)
            #expect(RunQueryPaths.takesElement(element), "seed \(seed): \(element)")
        }
    }

    @Test func truncationsAndReplacedBytes() {
        for seed in UInt64(1)...6 {
            var generator = RunQueryBodyGenerator(seed: seed, pretty: seed % 2 == 0)
            let body = Array(generator.body(documents: 2).utf8)
            for end in stride(from: 0, through: body.count, by: 3) {
                RunQueryPaths.expectSame(Data(body[..<end]))
            }
            for _ in 0..<300 {
                var mutated = body
                let position = generator.int(0...(body.count - 1))
                mutated[position] = UInt8.random(in: 0...255, using: &generator.random)
                RunQueryPaths.expectSame(Data(mutated))
            }
        }
    }

    /// A member inserted at a random object's start: a duplicate of a member the wire uses, an unknown one, an
    /// `error`, or a known name with a value of the wrong type.
    @Test func insertedMembers() {
        let inserts = [
            #""name":"x","#, #""fields":{},"#, #""readTime":"2024-05-01T00:00:00Z","#, #""document":{"name":"x"},"#,
            #""stringValue":"x","#, #""integerValue":"1","#, #""values":[],"#, #""latitude":1,"#, #""extra":1,"#,
            #""error":{"code":500,"message":"boom"},"#, #""createTime":7,"#, #""skippedResults":"1","#,
            #""transaction":"","#, #""done":null,"#, #""nullValue":null,"#, #""mapValue":{},"#,
        ]
        for seed in UInt64(1)...40 {
            var generator = RunQueryBodyGenerator(seed: seed, pretty: seed % 2 == 1)
            let body = Array(generator.body(documents: 2).utf8)
            let opens = body.indices.filter {
                body[$0] == UInt8(ascii: "{") && $0 + 1 < body.count && body[$0 + 1] != UInt8(ascii: "}")
            }
            for insert in inserts {
                guard let position = opens.randomElement(using: &generator.random) else { continue }
                var mutated = body
                mutated.insert(contentsOf: Array(insert.utf8), at: position + 1)
                RunQueryPaths.expectSame(Data(mutated))
            }
        }
    }
}
