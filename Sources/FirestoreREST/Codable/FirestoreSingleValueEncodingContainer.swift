import FirestoreWire

/// The single-value container: it sets the value of the encoder's box.
struct FirestoreSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: FirestoreEncoderImpl
    let node: CodingPathNode

    var codingPath: [any CodingKey] { node.path }

    private func set(_ value: FieldValue) { encoder.box.content = .value(value) }

    mutating func encodeNil() throws { set(.value(.null)) }
    mutating func encode(_ value: Bool) throws { set(.value(.boolean(value))) }
    mutating func encode(_ value: String) throws { set(.value(.string(value))) }
    mutating func encode(_ value: Double) throws { set(.value(.double(value))) }
    mutating func encode(_ value: Float) throws { set(.value(.double(Double(value)))) }
    mutating func encode(_ value: Int) throws { set(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int8) throws { set(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int16) throws { set(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int32) throws { set(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int64) throws { set(.value(.integer(value))) }
    mutating func encode(_ value: UInt) throws { set(try encoder.integer(value, at: node)) }
    mutating func encode(_ value: UInt8) throws { set(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt16) throws { set(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt32) throws { set(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt64) throws { set(try encoder.integer(value, at: node)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        switch try encoder.encodeValue(value, at: node) {
        case .value(let encoded)?: encoder.box.content = .value(encoded)
        case .box(let box)?: encoder.box.content = box.content
        case nil:
            throw EncodingError.invalidValue(
                value, encoder.context(at: node, "@DocumentID is never written; it can only be a property of a model"))
        }
    }
}
