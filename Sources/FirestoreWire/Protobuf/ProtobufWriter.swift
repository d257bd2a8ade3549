/// Appends protobuf wire-format fields to a byte array (protobuf encoding guide: varints, tags, `fixed64`,
/// length-delimited records). The message encoders of this folder (``ListenRequest``, `Value`, `Document`,
/// `StructuredQuery`) are written on top of it; it knows nothing of their schemas.
///
/// Integers are plain varints: an `int64` is its two's-complement bit pattern, and a negative `int32` is
/// sign-extended to 64 bits first, so it takes 10 bytes, as the protobuf rules for `int32` require (no
/// zigzag: Firestore uses no `sint` fields). A nested message is written in place: one byte is reserved for
/// its length and the payload is shifted when the length needs more.
///
/// Writers never fail: every input has an encoding.
package struct ProtobufWriter: Sendable {
    /// The bytes written so far: a sequence of complete fields once every ``writeMessageField(_:_:)`` body
    /// has returned.
    package private(set) var bytes: [UInt8] = []

    /// An empty writer.
    package init() {}

    /// Appends `value` as a base-128 varint, 1 to 10 bytes, least significant group first.
    /// - Complexity: O(1).
    package mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    /// Appends the tag of field `number` (1 ... 536,870,911) with `wireType`: the varint
    /// `number << 3 | wireType`.
    package mutating func writeTag(_ number: UInt32, _ wireType: ProtobufWireType) {
        writeVarint(UInt64(number) << 3 | UInt64(wireType.rawValue))
    }

    /// Appends an `int64` (or enum, `uint64`) field: the tag, then the value's bit pattern as a varint.
    package mutating func writeInt64Field(_ number: UInt32, _ value: Int64) {
        writeTag(number, .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    /// Appends an `int32` (or enum) field; a negative value is sign-extended and takes 10 bytes.
    package mutating func writeInt32Field(_ number: UInt32, _ value: Int32) {
        writeInt64Field(number, Int64(value))
    }

    /// Appends a `bool` field: `01` for true, `00` for false.
    package mutating func writeBoolField(_ number: UInt32, _ value: Bool) {
        writeTag(number, .varint)
        bytes.append(value ? 1 : 0)
    }

    /// Appends a `double` field: the tag, then the IEEE 754 bit pattern as 8 little-endian bytes (NaN payloads
    /// and the sign of zero are kept).
    package mutating func writeDoubleField(_ number: UInt32, _ value: Double) {
        writeTag(number, .fixed64)
        let pattern = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: pattern >> UInt64(shift)))
        }
    }

    /// Appends a `bytes` field: the tag, the byte count as a varint, the bytes.
    /// - Complexity: O(n) in `value.count`.
    package mutating func writeBytesField(_ number: UInt32, _ value: some Collection<UInt8>) {
        writeTag(number, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a `string` field: its UTF-8 bytes (a Swift `String` is always valid UTF-8).
    /// - Complexity: O(n) in the UTF-8 length.
    package mutating func writeStringField(_ number: UInt32, _ value: String) {
        writeBytesField(number, value.utf8)
    }

    /// Appends a message field: the tag, the payload's length and the payload `body` writes.
    ///
    /// - Parameters:
    ///   - number: the field number.
    ///   - body: writes the nested message's fields to the same writer.
    /// - Throws: whatever `body` throws; the writer's bytes are then unspecified.
    /// - Complexity: O(n) in the payload, plus one shift of the payload when it is 128 bytes or longer.
    package mutating func writeMessageField<E: Error>(
        _ number: UInt32, _ body: (inout ProtobufWriter) throws(E) -> Void
    ) throws(E) {
        writeTag(number, .lengthDelimited)
        let lengthIndex = bytes.count
        bytes.append(0)
        try body(&self)
        let length = bytes.count - lengthIndex - 1
        if length < 0x80 {
            bytes[lengthIndex] = UInt8(length)
        } else {
            var prefix = ProtobufWriter()
            prefix.writeVarint(UInt64(length))
            bytes.replaceSubrange(lengthIndex..<(lengthIndex + 1), with: prefix.bytes)
        }
    }
}
