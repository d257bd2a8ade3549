import FirestoreWire

/// An optional property whose `nil` is written as `nullValue` instead of being left out, as the SDK's
/// `@ExplicitNull` (the Firebase Apple SDK's property wrapper; `CodableFieldCaseTests.c15...`):
///
/// ```swift
/// struct Profile: Codable {
///     @ExplicitNull var nickname: String?    // nil writes "nickname": null
/// }
/// ```
///
/// Decoding: an absent field and `nullValue` are both `nil`, exactly as for a plain optional (with any decoder:
/// a `KeyedDecodingContainer.decode` overload). For every optional of a model at once, see
/// ``FirestoreEncoder/nilEncodingStrategy-swift.property``.
@propertyWrapper
public struct ExplicitNull<Value> {
    /// The value; `nil` is written as `nullValue`.
    public var wrappedValue: Value?

    /// A property holding `value`.
    public init(wrappedValue value: Value?) {
        self.wrappedValue = value
    }
}

extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Hashable where Value: Hashable {}
extension ExplicitNull: Sendable where Value: Sendable {}

extension ExplicitNull: Encodable where Value: Encodable {
    /// `nullValue` for `nil`, else the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension ExplicitNull: Decodable where Value: Decodable {
    /// `nil` for `nullValue`, else the value.
    /// - Throws: the value's `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension ExplicitNull: FirestoreNativeDecodable where Value: Decodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> ExplicitNull<Value>
    {
        switch value {
        case nil, .null?: return ExplicitNull(wrappedValue: nil)
        case let value?: return ExplicitNull(wrappedValue: try decoder.decode(Value.self, from: value, at: node))
        }
    }
}
