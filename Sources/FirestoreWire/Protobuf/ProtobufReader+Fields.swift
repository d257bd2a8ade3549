#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Typed reads of one field's payload, each checking the wire type the schema declares for the field
// (protobuf encoding guide, "Scalar Value Types"). `name` is the field's proto name; it ends the error path.

extension ProtobufReader {
    /// An `int64` (or `uint64` read as its bit pattern): a varint.
    /// - Throws: ``FirestoreError`` `.dataLoss` for another wire type or a malformed varint.
    package mutating func readInt64(_ field: ProtobufField, _ name: StaticString) throws(FirestoreError) -> Int64 {
        try expect(field, .varint, name)
        return Int64(bitPattern: try readVarint(name))
    }

    /// An `int32` or enum: a varint truncated to its low 32 bits, as protobuf parsers do (a negative value
    /// arrives sign-extended to 10 bytes).
    /// - Throws: ``FirestoreError`` `.dataLoss` for another wire type or a malformed varint.
    package mutating func readInt32(_ field: ProtobufField, _ name: StaticString) throws(FirestoreError) -> Int32 {
        try expect(field, .varint, name)
        return Int32(truncatingIfNeeded: try readVarint(name))
    }

    /// A `bool`: a varint, true when not zero.
    /// - Throws: ``FirestoreError`` `.dataLoss` for another wire type or a malformed varint.
    package mutating func readBool(_ field: ProtobufField, _ name: StaticString) throws(FirestoreError) -> Bool {
        try expect(field, .varint, name)
        return try readVarint(name) != 0
    }

    /// A `double`: 8 little-endian bytes of IEEE 754 bit pattern (NaN payloads and the sign of zero kept).
    /// - Throws: ``FirestoreError`` `.dataLoss` for another wire type or fewer than 8 bytes left.
    package mutating func readDouble(_ field: ProtobufField, _ name: StaticString) throws(FirestoreError) -> Double {
        try expect(field, .fixed64, name)
        var pattern: UInt64 = 0
        for (shift, byte) in zip(stride(from: 0, to: 64, by: 8), bytes(try take(8, name))) {
            pattern |= UInt64(byte) << UInt64(shift)
        }
        return Double(bitPattern: pattern)
    }

    /// A `string`: length-delimited, well-formed UTF-8.
    /// - Throws: ``FirestoreError`` `.dataLoss` for another wire type, a length past the end, or ill-formed
    ///   UTF-8 (the offset is the first byte of the bad sequence).
    /// - Complexity: O(n) in the string's length.
    package mutating func readString(_ field: ProtobufField, _ name: StaticString) throws(FirestoreError) -> String {
        try expect(field, .lengthDelimited, name)
        let range = try readLengthDelimited(name)
        let payload = bytes(range)
        // Checked here, then decoded (nothing left to repair): `String(validating:as:)` is generic over the encoding
        // and, unspecialized, looked its type metadata up on every call (a third of a document's decoding).
        guard let bad = firstInvalidUTF8Offset(in: payload) else { return String(decoding: payload, as: UTF8.self) }
        throw failure("invalid UTF-8", at: range.lowerBound + bad, field: name)
    }

    /// A `bytes` field as an array.
    /// - Throws: ``FirestoreError`` `.dataLoss` for another wire type or a length past the end.
    /// - Complexity: O(n) in the payload.
    package mutating func readByteArray(_ field: ProtobufField, _ name: StaticString) throws(FirestoreError)
        -> [UInt8]
    {
        try expect(field, .lengthDelimited, name)
        return Array(bytes(try readLengthDelimited(name)))
    }

    /// A `bytes` field as `Data`.
    /// - Throws: as ``readByteArray(_:_:)``.
    package mutating func readData(_ field: ProtobufField, _ name: StaticString) throws(FirestoreError) -> Data {
        try expect(field, .lengthDelimited, name)
        return Data(bytes(try readLengthDelimited(name)))
    }

    /// One occurrence of a `repeated int32` field, appended to `values`: either one varint or, packed (the
    /// proto3 default), a length-delimited run of varints. Parsers must accept both forms.
    /// - Throws: ``FirestoreError`` `.dataLoss` for another wire type, a length past the end or a malformed
    ///   varint (also one cut off by the end of a packed run).
    package mutating func readInt32s(_ field: ProtobufField, _ name: StaticString, into values: inout [Int32])
        throws(FirestoreError)
    {
        switch field.wireType {
        case .varint:
            values.append(Int32(truncatingIfNeeded: try readVarint(name)))
        case .lengthDelimited:
            try within(try readLengthDelimited(name)) { (reader) throws(FirestoreError) in
                while !reader.isAtEnd {
                    values.append(Int32(truncatingIfNeeded: try reader.readVarint(name)))
                }
            }
        default:
            try expect(field, .varint, name)
        }
    }
}

extension ProtobufReader {
    /// The `int64 seconds = 1` and `int32 nanos = 2` of the current message: the layout of both
    /// `google.protobuf.Timestamp` and `google.protobuf.Duration` (absent fields are 0; unknown fields skipped).
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    package mutating func readSecondsAndNanos() throws(FirestoreError) -> (seconds: Int64, nanos: Int32) {
        var seconds: Int64 = 0
        var nanos: Int32 = 0
        while let field = try nextField() {
            switch field.number {
            case 1: seconds = try readInt64(field, "seconds")
            case 2: nanos = try readInt32(field, "nanos")
            default: try skip(field)
            }
        }
        return (seconds, nanos)
    }
}
