import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `Decoder` of one decoding call. One instance walks the whole tree: decoding a nested value saves the
/// current value and path, decodes, and restores them (no allocation per level beyond the path node).
final class FirestoreDecoderImpl: Decoder {
    let context: DecodingContext
    /// The value this decoder stands at.
    private(set) var value: FirestoreValue
    /// Where that value sits.
    private(set) var node: CodingPathNode

    init(context: DecodingContext, value: FirestoreValue, node: CodingPathNode) {
        self.context = context
        self.value = value
        self.node = node
    }

    static func decodeTopLevel<T: Decodable>(_ type: T.Type, from value: FirestoreValue, context: DecodingContext)
        throws -> T
    {
        let decoder = FirestoreDecoderImpl(context: context, value: value, node: .root)
        return try decoder.decode(type, from: value, at: .root)
    }

    var codingPath: [any CodingKey] { node.path }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let fields) = value else {
            throw mismatch([String: Any].self, value, at: node, expected: "a map")
        }
        return KeyedDecodingContainer(FirestoreKeyedDecodingContainer<Key>(decoder: self, fields: fields, node: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let values) = value else { throw mismatch([Any].self, value, at: node, expected: "an array") }
        return FirestoreUnkeyedDecodingContainer(decoder: self, values: values, node: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        FirestoreSingleValueDecodingContainer(decoder: self, value: value, node: node)
    }

    // MARK: - Decoding one value

    /// Decodes `type` from `value` found at `node`: Firestore's own types and the primitives directly, every
    /// other type through its `init(from:)` with this decoder moved to `value`.
    func decode<T: Decodable>(_ type: T.Type, from value: FirestoreValue, at node: CodingPathNode) throws -> T {
        if let native = T.self as? any FirestoreNativeDecodable.Type {
            return try cast(native.decodeNative(from: value, at: node, in: self), at: node)
        }
        return try decodeNested(type, from: value, at: node)
    }

    /// Decodes `type` through its own `init(from:)` with this decoder moved to `value`.
    func decodeNested<T: Decodable>(_ type: T.Type, from value: FirestoreValue, at node: CodingPathNode) throws -> T {
        try moved(to: value, at: node) { try T(from: self) }
    }

    /// Runs `body` with this decoder standing at `value` and `node`, then moves it back.
    func moved<R>(to value: FirestoreValue, at node: CodingPathNode, _ body: () throws -> R) rethrows -> R {
        let (savedValue, savedNode) = (self.value, self.node)
        self.value = value
        self.node = node
        defer {
            self.value = savedValue
            self.node = savedNode
        }
        return try body()
    }

    /// Decodes the field `value` (`nil` when absent) of the key at `node`: types that take an absent field
    /// (``DocumentID``, ``ServerTimestamp``, ``ExplicitNull``) are asked; for any other type it is `keyNotFound`.
    func decodeField<T: Decodable>(_ type: T.Type, from value: FirestoreValue?, at node: CodingPathNode) throws -> T {
        if let native = T.self as? any FirestoreNativeDecodable.Type {
            return try cast(native.decodeNative(from: value, at: node, in: self), at: node)
        }
        guard let value else { throw keyNotFound(at: node) }
        return try decodeNested(type, from: value, at: node)
    }

    private func cast<T>(_ decoded: Any, at node: CodingPathNode) throws -> T {
        guard let result = decoded as? T else {
            throw DecodingError.typeMismatch(
                T.self, context(at: node, "internal: decoded \(Swift.type(of: decoded)) where \(T.self) was asked"))
        }
        return result
    }

    // MARK: - Primitives

    func bool(_ value: FirestoreValue, at node: @autoclosure () -> CodingPathNode) throws -> Bool {
        guard case .boolean(let flag) = value else { throw mismatch(Bool.self, value, at: node()) }
        return flag
    }

    func string(_ value: FirestoreValue, at node: @autoclosure () -> CodingPathNode) throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, value, at: node()) }
        return text
    }

    func double(_ value: FirestoreValue, at node: @autoclosure () -> CodingPathNode) throws -> Double {
        switch value {
        case .double(let number): return number
        case .integer(let number): return Double(number)
        default: throw mismatch(Double.self, value, at: node())
        }
    }

    func float(_ value: FirestoreValue, at node: @autoclosure () -> CodingPathNode) throws -> Float {
        let number = try double(value, at: node())
        let narrowed = Float(number)
        if narrowed.isInfinite, number.isFinite {
            throw DecodingError.dataCorrupted(context(at: node(), "\(number) does not fit in Float"))
        }
        return narrowed
    }

    /// An integer of type `I`: from `integerValue` when in range, from a `doubleValue` when it is a whole number
    /// that fits exactly.
    func integer<I: FixedWidthInteger>(
        _ type: I.Type, _ value: FirestoreValue, at node: @autoclosure () -> CodingPathNode
    )
        throws -> I
    {
        switch value {
        case .integer(let number):
            guard let result = I(exactly: number) else {
                throw DecodingError.dataCorrupted(context(at: node(), "\(number) is out of range for \(I.self)"))
            }
            return result
        case .double(let number):
            guard let result = I(exactly: number) else {
                let why =
                    number.isFinite && number.rounded(.towardZero) == number ? "out of range" : "not a whole number"
                throw DecodingError.typeMismatch(
                    I.self, context(at: node(), "expected \(I.self), found doubleValue \(number) (\(why))"))
            }
            return result
        default:
            throw mismatch(I.self, value, at: node())
        }
    }

    // MARK: - Errors

    /// `fruits/u2: name: <text>`: the document path (when known), the field path (when not at the root), the
    /// text.
    func describe(_ node: CodingPathNode, _ text: String) -> String {
        var message = ""
        if let path = context.document?.path { message = path + ": " }
        let dotted = node.dotted
        if !dotted.isEmpty { message += dotted + ": " }
        return message + text
    }

    func context(at node: CodingPathNode, _ text: String, underlying: (any Error)? = nil) -> DecodingError.Context {
        DecodingError.Context(
            codingPath: node.path, debugDescription: describe(node, text), underlyingError: underlying)
    }

    /// `typeMismatch` (or `valueNotFound` for `nullValue`): `expected String, found integerValue`.
    func mismatch(_ type: Any.Type, _ value: FirestoreValue, at node: CodingPathNode, expected: String? = nil)
        -> DecodingError
    {
        // A vector is a map on the wire; say so, so that `[Double]` for a vector field points at VectorValue.
        let found = value.isVectorShaped ? "a vector (decode it as VectorValue)" : value.typeName
        let context = context(at: node, "expected \(expected ?? "\(type)"), found \(found)")
        if case .null = value { return .valueNotFound(type, context) }
        return .typeMismatch(type, context)
    }

    /// `keyNotFound` for the key at `node`; the context's path is the container's, as in Foundation.
    func keyNotFound(at node: CodingPathNode) -> DecodingError {
        let key: any CodingKey = node.lastKey ?? StringCodingKey("")
        return .keyNotFound(
            key,
            DecodingError.Context(
                codingPath: node.parent.path, debugDescription: describe(node, "required field is missing")))
    }

    /// A user type's own error (a wrap that failed, a custom strategy) as a `DecodingError` naming the place;
    /// a `DecodingError` passes unchanged.
    func wrapping(_ error: any Error, at node: CodingPathNode) -> any Error {
        if error is DecodingError { return error }
        return DecodingError.dataCorrupted(context(at: node, "\(error)", underlying: error))
    }
}
