import FirestoreWire

/// The unkeyed container of an `arrayValue`. The position advances only after an element decoded.
struct FirestoreUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: FirestoreDecoderImpl
    let values: [FirestoreValue]
    let node: CodingPathNode
    private(set) var currentIndex = 0

    init(decoder: FirestoreDecoderImpl, values: [FirestoreValue], node: CodingPathNode) {
        self.decoder = decoder
        self.values = values
        self.node = node
    }

    var codingPath: [any CodingKey] { node.path }
    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }

    private var here: CodingPathNode { node.appending(index: currentIndex) }

    private func next<T>(_ type: T.Type) throws -> FirestoreValue {
        guard currentIndex < values.count else {
            throw DecodingError.valueNotFound(
                type,
                decoder.context(
                    at: here, "expected \(type), but the array has only \(values.count) elements"))
        }
        return values[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try next(Never?.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try decoder.bool(next(type), at: here)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let result = try decoder.string(next(type), at: here)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let result = try decoder.double(next(type), at: here)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let result = try decoder.float(next(type), at: here)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let result = try decoder.integer(type, next(type), at: here)
        currentIndex += 1
        return result
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let result = try decoder.decode(type, from: next(type), at: here)
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let value = try next([String: Any].self)
        guard case .map(let fields) = value else {
            throw decoder.mismatch([String: Any].self, value, at: here, expected: "a map")
        }
        let container = FirestoreKeyedDecodingContainer<NestedKey>(decoder: decoder, fields: fields, node: here)
        currentIndex += 1
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try next([Any].self)
        guard case .array(let inner) = value else {
            throw decoder.mismatch([Any].self, value, at: here, expected: "an array")
        }
        let container = FirestoreUnkeyedDecodingContainer(decoder: decoder, values: inner, node: here)
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try next(Any.self)
        let child = FirestoreDecoderImpl(context: decoder.context, value: value, node: here)
        currentIndex += 1
        return child
    }
}
