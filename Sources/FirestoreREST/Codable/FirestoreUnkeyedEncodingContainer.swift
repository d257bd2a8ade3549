import FirestoreWire

/// The unkeyed container of an `arrayValue` being encoded.
struct FirestoreUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: FirestoreEncoderImpl
    let array: EncodedArray
    let node: CodingPathNode

    var codingPath: [any CodingKey] { node.path }
    var count: Int { array.elements.count }

    private var here: CodingPathNode { node.appending(index: array.elements.count) }

    private func append(_ value: FieldValue) { array.elements.append(.value(value)) }

    mutating func encodeNil() throws { append(.value(.null)) }
    mutating func encode(_ value: Bool) throws { append(.value(.boolean(value))) }
    mutating func encode(_ value: String) throws { append(.value(.string(value))) }
    mutating func encode(_ value: Double) throws { append(.value(.double(value))) }
    mutating func encode(_ value: Float) throws { append(.value(.double(Double(value)))) }
    mutating func encode(_ value: Int) throws { append(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int8) throws { append(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int16) throws { append(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int32) throws { append(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int64) throws { append(.value(.integer(value))) }
    mutating func encode(_ value: UInt) throws { append(try encoder.integer(value, at: here)) }
    mutating func encode(_ value: UInt8) throws { append(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt16) throws { append(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt32) throws { append(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt64) throws { append(try encoder.integer(value, at: here)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let place = here
        guard let encoded = try encoder.encodeValue(value, at: place) else {
            throw EncodingError.invalidValue(
                value, encoder.context(at: place, "@DocumentID is never written; it can only be a property of a model"))
        }
        array.elements.append(encoded)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let place = here
        let nested = EncodedMap()
        array.elements.append(.box(EncodedBox(.map(nested))))
        return KeyedEncodingContainer(
            FirestoreKeyedEncodingContainer<NestedKey>(encoder: encoder, map: nested, node: place))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let place = here
        let nested = EncodedArray()
        array.elements.append(.box(EncodedBox(.array(nested))))
        return FirestoreUnkeyedEncodingContainer(encoder: encoder, array: nested, node: place)
    }

    mutating func superEncoder() -> any Encoder {
        let place = here
        let box = EncodedBox()
        array.elements.append(.box(box))
        return FirestoreEncoderImpl(context: encoder.context, box: box, node: place)
    }
}
