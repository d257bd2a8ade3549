import FirestoreWire

/// The keyed container of a `mapValue`: a struct's properties or a dictionary's entries.
struct FirestoreKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FirestoreDecoderImpl
    /// The fields, their names already converted by the key decoding strategy.
    let fields: [String: FirestoreValue]
    let node: CodingPathNode

    init(decoder: FirestoreDecoderImpl, fields: [String: FirestoreValue], node: CodingPathNode) {
        self.decoder = decoder
        self.node = node
        if decoder.context.usesDefaultKeys {
            self.fields = fields
        } else {
            self.fields = Self.convert(fields, strategy: decoder.context.keyStrategy, node: node)
        }
    }

    /// The fields renamed by the strategy. When two stored names convert to the same key, the one that sorts
    /// first wins, so the result does not depend on dictionary order.
    private static func convert(
        _ fields: [String: FirestoreValue], strategy: FirestoreDecoder.KeyDecodingStrategy, node: CodingPathNode
    ) -> [String: FirestoreValue] {
        var converted: [String: FirestoreValue] = [:]
        converted.reserveCapacity(fields.count)
        let basePath = node.path
        for name in fields.keys.sorted() {
            let newName: String
            switch strategy {
            case .useDefaultKeys: newName = name
            case .convertFromSnakeCase: newName = SnakeCase.toCamelCase(name)
            case .custom(let convert): newName = convert(basePath + [StringCodingKey(name)]).stringValue
            }
            if converted[newName] == nil { converted[newName] = fields[name] }
        }
        return converted
    }

    var codingPath: [any CodingKey] { node.path }

    var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

    @inline(__always)
    private func value(for key: Key) throws -> FirestoreValue {
        guard let value = fields[key.stringValue] else { throw decoder.keyNotFound(at: node.appending(key)) }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(for: key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.bool(value(for: key), at: node.appending(key))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.string(value(for: key), at: node.appending(key))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.double(value(for: key), at: node.appending(key))
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.float(value(for: key), at: node.appending(key))
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    @inline(__always)
    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
        try decoder.integer(type, value(for: key), at: node.appending(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeField(type, from: fields[key.stringValue], at: node.appending(key))
    }

    // The `decodeIfPresent` family: absent and `nullValue` are both nil (one lookup instead of three).

    @inline(__always)
    private func present(_ key: Key) -> FirestoreValue? {
        switch fields[key.stringValue] {
        case nil, .null?: return nil
        case let value?: return value
        }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = present(key) else { return nil }
        return try decoder.bool(value, at: node.appending(key))
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = present(key) else { return nil }
        return try decoder.string(value, at: node.appending(key))
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = present(key) else { return nil }
        return try decoder.double(value, at: node.appending(key))
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let value = present(key) else { return nil }
        return try decoder.float(value, at: node.appending(key))
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optionalInteger(type, key) }

    @inline(__always)
    private func optionalInteger<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I? {
        guard let value = present(key) else { return nil }
        return try decoder.integer(type, value, at: node.appending(key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = present(key) else { return nil }
        return try decoder.decode(type, from: value, at: node.appending(key))
    }

    // MARK: - Nested containers and super decoders

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let child = node.appending(key)
        let value = try value(for: key)
        guard case .map(let inner) = value else {
            throw decoder.mismatch([String: Any].self, value, at: child, expected: "a map")
        }
        return KeyedDecodingContainer(
            FirestoreKeyedDecodingContainer<NestedKey>(decoder: decoder, fields: inner, node: child))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let child = node.appending(key)
        let value = try value(for: key)
        guard case .array(let values) = value else {
            throw decoder.mismatch([Any].self, value, at: child, expected: "an array")
        }
        return FirestoreUnkeyedDecodingContainer(decoder: decoder, values: values, node: child)
    }

    /// A decoder for the field `super` (`nullValue` when absent, as in Foundation).
    func superDecoder() throws -> any Decoder {
        FirestoreDecoderImpl(
            context: decoder.context, value: fields["super"] ?? .null, node: node.appending(StringCodingKey.super))
    }

    /// A decoder for the field `key` (`nullValue` when absent, as in Foundation).
    func superDecoder(forKey key: Key) throws -> any Decoder {
        FirestoreDecoderImpl(
            context: decoder.context, value: fields[key.stringValue] ?? .null, node: node.appending(key))
    }
}
