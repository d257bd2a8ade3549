import FirestoreWire

/// The keyed container of a `mapValue` being encoded.
struct FirestoreKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FirestoreEncoderImpl
    let map: EncodedMap
    let node: CodingPathNode

    var codingPath: [any CodingKey] { node.path }

    /// The field name of `key` under the key encoding strategy.
    private func name(_ key: Key) -> String {
        let context = encoder.context
        if context.usesDefaultKeys { return key.stringValue }
        switch context.keyStrategy {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return SnakeCase.fromCamelCase(key.stringValue)
        case .custom(let convert): return convert(node.path + [key]).stringValue
        }
    }

    private func set(_ value: FieldValue, _ key: Key) { map.entries[name(key)] = .value(value) }

    mutating func encodeNil(forKey key: Key) throws { set(.value(.null), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.value(.boolean(value)), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.value(.string(value)), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.value(.double(value)), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.value(.double(Double(value))), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.value(.integer(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        set(try encoder.integer(value, at: node.appending(key)), key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        set(try encoder.integer(value, at: node.appending(key)), key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let encoded = try encoder.encodeValue(value, at: node.appending(key)) {
            map.entries[name(key)] = encoded
        }
    }

    // The `encodeIfPresent` family: `nil` is left out, or written as `nullValue` under
    // `NilEncodingStrategy.null`.

    private mutating func encodeIfPresent<T: Encodable>(
        _ value: T?, _ key: Key, _ encode: (inout Self, T) throws -> Void
    )
        rethrows
    {
        if let value {
            try encode(&self, value)
        } else if encoder.context.writesNull {
            set(.value(.null), key)
        }
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try encodeIfPresent(value, key) { try $0.encode($1, forKey: key) }
    }

    // MARK: - Nested containers and super encoders

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = EncodedMap()
        map.entries[name(key)] = .box(EncodedBox(.map(nested)))
        return KeyedEncodingContainer(
            FirestoreKeyedEncodingContainer<NestedKey>(encoder: encoder, map: nested, node: node.appending(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        map.entries[name(key)] = .box(EncodedBox(.array(nested)))
        return FirestoreUnkeyedEncodingContainer(encoder: encoder, array: nested, node: node.appending(key))
    }

    /// An encoder for the field `super` (what a subclass's `encode(to:)` hands its superclass).
    mutating func superEncoder() -> any Encoder {
        let box = EncodedBox()
        map.entries["super"] = .box(box)
        return FirestoreEncoderImpl(context: encoder.context, box: box, node: node.appending(StringCodingKey.super))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let box = EncodedBox()
        map.entries[name(key)] = .box(box)
        return FirestoreEncoderImpl(context: encoder.context, box: box, node: node.appending(key))
    }
}
