import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `Encoder` of one value: it fills one ``EncodedBox``. A nested value gets an encoder of its own whose box
/// is already linked into the parent.
final class FirestoreEncoderImpl: Encoder {
    let context: EncodingContext
    let box: EncodedBox
    let node: CodingPathNode

    init(context: EncodingContext, box: EncodedBox, node: CodingPathNode) {
        self.context = context
        self.box = box
        self.node = node
    }

    /// Encodes `value` at the root and returns the finished value.
    static func encodeTopLevel<T: Encodable>(_ value: T, context: EncodingContext) throws -> FieldValue {
        let encoder = FirestoreEncoderImpl(context: context, box: EncodedBox(), node: .root)
        guard let encoded = try encoder.encodeValue(value, at: .root) else {
            throw EncodingError.invalidValue(
                value, encoder.context(at: .root, "@DocumentID is never written; it can only be a property of a model"))
        }
        return encoded.writeValue
    }

    var codingPath: [any CodingKey] { node.path }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    /// The keyed container of this value. A value that asks for a different kind of container after writing
    /// another keeps the last one (the `Encoder` protocol leaves this undefined; Foundation traps).
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let map: EncodedMap
        if case .map(let existing) = box.content {
            map = existing
        } else {
            map = EncodedMap()
            box.content = .map(map)
        }
        return KeyedEncodingContainer(FirestoreKeyedEncodingContainer<Key>(encoder: self, map: map, node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        if case .array(let existing) = box.content {
            array = existing
        } else {
            array = EncodedArray()
            box.content = .array(array)
        }
        return FirestoreUnkeyedEncodingContainer(encoder: self, array: array, node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FirestoreSingleValueEncodingContainer(encoder: self, node: node)
    }

    // MARK: - Encoding one value

    /// Encodes `value` found at `node`: Firestore's own types, the primitives and the Foundation types with a
    /// Firestore form directly, anything else through its `encode(to:)` into a new box. `nil` means "write
    /// nothing here" (a ``DocumentID``).
    func encodeValue<T: Encodable>(_ value: T, at node: CodingPathNode) throws -> EncodedNode? {
        if let native = value as? any FirestoreNativeEncodable {
            return try native.encodeNative(at: node, in: self)
        }
        return .box(try encodeNested(at: node) { encoder in try value.encode(to: encoder) })
    }

    /// A new box filled by `body` with an encoder standing at `node`.
    func encodeNested(at node: CodingPathNode, _ body: (FirestoreEncoderImpl) throws -> Void) throws -> EncodedBox {
        let child = EncodedBox()
        try body(FirestoreEncoderImpl(context: context, box: child, node: node))
        return child
    }

    /// An integer as an `integerValue`, or `invalidValue` when it does not fit in 64 signed bits.
    func integer<I: FixedWidthInteger>(_ number: I, at node: @autoclosure () -> CodingPathNode) throws -> FieldValue {
        guard let exact = Int64(exactly: number) else {
            throw EncodingError.invalidValue(
                number,
                context(
                    at: node(),
                    "\(number) is out of range for an integerValue (a signed 64-bit integer, at most \(Int64.max))"))
        }
        return .value(.integer(exact))
    }

    // MARK: - Errors

    func context(at node: CodingPathNode, _ text: String) -> EncodingError.Context {
        var message = context.documentPath.map { $0 + ": " } ?? ""
        let dotted = node.dotted
        if !dotted.isEmpty { message += dotted + ": " }
        return EncodingError.Context(codingPath: node.path, debugDescription: message + text)
    }

    /// A user type's own error (an unwrap that failed, a custom strategy) as an `EncodingError` naming the
    /// place; an `EncodingError` passes unchanged.
    func wrapping(_ error: any Error, value: Any, at node: CodingPathNode) -> any Error {
        if error is EncodingError { return error }
        return EncodingError.invalidValue(value, context(at: node, "\(error)"))
    }
}
