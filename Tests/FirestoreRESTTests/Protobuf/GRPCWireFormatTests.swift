import Foundation
import Testing

@testable import FirestoreREST

/// The bare wire format (protobuf encoding guide): varints, tags, fixed64, length prefixes, skipping unknown
/// fields of every wire type, and every malformed input. Expected bytes are worked out by hand from the
/// encoding rules.
@Suite("GRPC wire format", .timeLimit(.minutes(2)))
struct GRPCWireFormatTests {
    @Test(
        "varints: 7 bits per byte, least significant first",
        arguments: [
            (UInt64(0), "00"), (1, "01"), (127, "7f"), (128, "80 01"), (300, "ac 02"), (16_384, "80 80 01"),
            (UInt64(UInt32.max), "ff ff ff ff 0f"), (UInt64.max, "ff ff ff ff ff ff ff ff ff 01"),
        ])
    func varints(value: UInt64, expected: String) {
        var writer = ProtobufWriter()
        writer.writeVarint(value)
        #expect(writer.bytes == hex(expected))
    }

    @Test("tags, int32 sign extension, bool, double, bytes")
    func scalarFields() {
        var writer = ProtobufWriter()
        writer.writeInt32Field(1, -1)  // 08, then -1 sign-extended to 64 bits: ten bytes
        writer.writeInt64Field(2, 150)  // 10 96 01
        writer.writeBoolField(3, true)  // 18 01
        writer.writeDoubleField(4, 1.5)  // 21, 0x3FF8000000000000 little-endian
        writer.writeStringField(5, "hi")  // 2a 02 68 69
        writer.writeBytesField(16, [0xAB])  // field 16: (16 << 3 | 2) = 130 = 82 01
        #expect(
            writer.bytes
                == hex(
                    """
                    08 ff ff ff ff ff ff ff ff ff 01
                    10 96 01
                    18 01
                    21 00 00 00 00 00 00 f8 3f
                    2a 02 68 69
                    82 01 01 ab
                    """))
    }

    @Test("a nested message of 128 bytes or more gets a two-byte length")
    func longNestedMessage() {
        var writer = ProtobufWriter()
        writer.writeMessageField(1) { $0.writeBytesField(2, repeated(0x78, 200)) }
        // inner: 12 c8 01 + 200 bytes = 203 = 0xcb -> varint cb 01
        #expect(writer.bytes == hex("0a cb 01 12 c8 01") + repeated(0x78, 200))
    }

    @Test("an empty nested message is a tag and a zero length")
    func emptyNestedMessage() {
        var writer = ProtobufWriter()
        writer.writeMessageField(7) { _ in }
        #expect(writer.bytes == hex("3a 00"))
    }

    /// A `Value` holding `integer_value = 1` after one unknown field of each skippable wire type, with field
    /// numbers 100 ... 103 (two-byte tags: 100 << 3 = 800 = a0 06).
    @Test("unknown fields of wire types 0, 1, 2 and 5 are skipped")
    func skipsUnknownFields() throws {
        let bytes = hex(
            """
            a0 06 96 01
            a9 06 01 02 03 04 05 06 07 08
            b2 06 03 aa bb cc
            bd 06 01 02 03 04
            10 01
            """)
        #expect(try FirestoreValue(protobuf: bytes) == .integer(1))
    }

    @Test("an unknown field inside a nested message is skipped")
    func skipsNestedUnknownField() throws {
        // map_value { fields { key "a" (field 1), field 9 varint 5 (unknown), value { boolean_value true } } }
        let bytes = hex("32 0b 0a 09 0a 01 61 48 05 12 02 08 01")
        #expect(try FirestoreValue(protobuf: bytes) == .map(["a": true]))
    }

    @Test("a packed and an unpacked repeated int32 read alike")
    func repeatedInt32Forms() throws {
        // field 2 packed [1, 300, -1], then field 2 unpacked 7
        let bytes = hex("12 0d 01 ac 02 ff ff ff ff ff ff ff ff ff 01 10 07")
        let values = try ProtobufReader.read(bytes, message: "Test") { (reader) throws(FirestoreError) in
            var values: [Int32] = []
            while let field = try reader.nextField() {
                try reader.readInt32s(field, "ids", into: &values)
            }
            return values
        }
        #expect(values == [1, 300, -1, 7])
    }

    static let malformed: [(name: String, bytes: String, message: String)] = [
        ("truncated varint", "10 ff", "Value.integer_value: truncated varint at byte 1"),
        (
            "11-byte varint", "10 ff ff ff ff ff ff ff ff ff ff 01",
            "Value.integer_value: varint longer than 10 bytes at byte 1"
        ),
        ("truncated tag", "8a", "Value: truncated varint at byte 0"),
        ("length past the end", "8a 01 05 61", "Value.string_value: length 5 past the end at byte 2"),
        ("fixed64 cut short", "19 00 00 00", "Value.double_value: 8-byte value past the end at byte 1"),
        ("ill-formed UTF-8", "8a 01 03 61 ff 62", "Value.string_value: invalid UTF-8 at byte 4"),
        ("UTF-8 surrogate", "8a 01 04 61 ed a0 80", "Value.string_value: invalid UTF-8 at byte 4"),
        ("UTF-8 overlong", "2a 03 61 c0 80", "Value.reference_value: invalid UTF-8 at byte 3"),
        ("UTF-8 truncated sequence", "8a 01 02 61 e2", "Value.string_value: invalid UTF-8 at byte 4"),
        ("start group", "0b", "Value: wire type 3 (a proto2 group, unsupported) for field 1 at byte 0"),
        ("end group", "10 01 0c", "Value: wire type 4 (a proto2 group, unsupported) for field 1 at byte 2"),
        ("wire type 6", "0e", "Value: undefined wire type 6 for field 1 at byte 0"),
        ("field number 0", "00 01", "Value: field number 0 at byte 0"),
        (
            "wrong wire type for a known field", "0a 00",
            "Value.boolean_value: expected wire type varint, found length-delimited at byte 0"
        ),
        (
            "wrong wire type for a known message", "32 00 30 01",
            "Value.map_value: expected wire type length-delimited, found varint at byte 2"
        ),
        (
            "a Value with no known member", "",
            "Value: unknown value type (a Value with no member this decoder knows) at byte 0"
        ),
        ("unknown field cut short", "a5 06 01 02", "Value: 4-byte value past the end at byte 2"),
        ("nested length past the end", "32 09 0a 01 61", "Value.map_value: length 9 past the end at byte 1"),
        (
            "length past the end of the enclosing message", "32 03 0a 09 0a 00 00",
            "Value.map_value.fields: length 9 past the end at byte 3"
        ),
        (
            "a map value that fails names its key", "32 08 0a 06 0a 01 61 12 01 10",
            "Value.map_value.fields[\"a\"].integer_value: truncated varint at byte 10"
        ),
        (
            "an array element that fails names its index", "4a 06 0a 02 10 01 0a 00",
            "Value.array_value[1]: unknown value type (a Value with no member this decoder knows) at byte 8"
        ),
        ("null_value other than 0", "58 01", "Value.null_value: must be NULL_VALUE (0), found 1 at byte 0"),
        (
            "a NaN latitude", "42 09 09 00 00 00 00 00 00 f8 7f",
            "Value.geo_point_value.latitude: coordinate must be finite at byte 2"
        ),
        (
            "an infinite longitude", "42 09 11 00 00 00 00 00 00 f0 ff",
            "Value.geo_point_value.longitude: coordinate must be finite at byte 2"
        ),
        (
            "timestamp nanos out of range", "52 06 10 80 94 eb dc 03",
            "Value.timestamp_value: Timestamp nanos 1000000000 is outside 0...999999999 at byte 2"
        ),
    ]

    @Test("malformed input throws dataLoss naming the path and the byte offset", arguments: malformed)
    func malformedInput(name: String, bytes: String, message: String) {
        #expect(throws: FirestoreError(code: .dataLoss, message: message), "\(name)") {
            try FirestoreValue(protobuf: hex(bytes))
        }
    }

    @Test("nesting deeper than the bound is an error, not a stack overflow")
    func deepNesting() {
        // 1,000 array_value levels: 4a <len> 0a <len> ... built from the inside out.
        var bytes = hex("58 00")
        for _ in 0..<1000 {
            var writer = ProtobufWriter()
            writer.writeMessageField(9) { array in array.writeBytesField(1, bytes) }
            bytes = writer.bytes
        }
        #expect {
            try FirestoreValue(protobuf: bytes)
        } throws: { error in
            guard let error = error as? FirestoreError else { return false }
            return error.code == .dataLoss && error.message.contains(": messages nested deeper than 200 at byte ")
        }
    }
}
