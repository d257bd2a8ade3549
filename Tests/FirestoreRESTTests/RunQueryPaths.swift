import Foundation
import Testing

@testable import FirestoreREST

/// The two ways `Firestore.decodeRunQuery(body:)` decodes an element, held together by the differential tests:
/// straight from the bytes where it can (`RunQueryElementDecoder`), or every element through its JSON tree.
enum RunQueryPaths {
    /// The result or the error of decoding `body` one way.
    static func outcome(_ body: Data, bytesFirst: Bool) -> Result<RunQueryResponse, FirestoreError> {
        Result { () throws(FirestoreError) in try Firestore.decodeRunQuery(body: body, bytesFirst: bytesFirst) }
    }

    /// Expects both ways to give the same response (bit for bit: `-0.0` is not `0.0` here, although `==` says
    /// so) or the same error; returns the outcome.
    @discardableResult
    static func expectSame(_ body: Data, sourceLocation: SourceLocation = #_sourceLocation)
        -> Result<RunQueryResponse, FirestoreError>
    {
        let bytes = outcome(body, bytesFirst: true)
        let tree = outcome(body, bytesFirst: false)
        let label = String(decoding: body.prefix(300), as: UTF8.self)
        switch (bytes, tree) {
        case (.success(let fast), .success(let slow)):
            #expect(fast == slow, "\(label)", sourceLocation: sourceLocation)
            #expect(
                fast.documents.map { bitPattern(of: $0) } == slow.documents.map { bitPattern(of: $0) }, "\(label)",
                sourceLocation: sourceLocation)
        case (.failure(let fast), .failure(let slow)):
            #expect(fast == slow, "\(label)", sourceLocation: sourceLocation)
        default:
            Issue.record("bytes path \(bytes), tree path \(tree) for \(label)", sourceLocation: sourceLocation)
        }
        return bytes
    }

    /// A text of the document where every double is written by its bit pattern and map keys are sorted, so two
    /// documents with the same text hold bit-identical values.
    static func bitPattern(of document: Document) -> String {
        "\(document.name)|\(String(describing: document.createTime))|\(String(describing: document.updateTime))|"
            + bitPattern(of: .map(document.fields))
    }

    static func bitPattern(of value: FirestoreValue) -> String {
        switch value {
        case .double(let number): return "d\(number.bitPattern)"
        case .array(let values): return "[" + values.map { bitPattern(of: $0) }.joined(separator: ",") + "]"
        case .map(let fields):
            let members = fields.sorted { Array($0.key.utf8).lexicographicallyPrecedes($1.key.utf8) }
            return "{" + members.map { "\(Array($0.key.utf8)):\(bitPattern(of: $0.value))" }.joined(separator: ",")
                + "}"
        default: return String(reflecting: value)
        }
    }

    /// Whether the bytes decoder takes the element given as JSON text whole (it does not give it to the tree).
    static func takesElement(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            var reader = RESTByteReader(bytes: buffer, index: 0)
            return RunQueryElementDecoder.decode(&reader) != nil && reader.index == buffer.count
        }
    }
}
