import Foundation
import Testing

@testable import FirestoreREST

/// `google.firestore.v1.Value` and `Document` (`google/firestore/v1/document.proto`) <-> ``FirestoreValue``
/// and ``Document``. Expected bytes are worked out by hand: tag = field number << 3 | wire type.
@Suite("GRPC Value and Document", .timeLimit(.minutes(2)))
struct GRPCValueTests {
    static let encodings: [(name: String, value: FirestoreValue, bytes: String)] = [
        ("null: null_value = 11, NULL_VALUE = 0", .null, "58 00"),
        ("true: boolean_value = 1", .boolean(true), "08 01"),
        ("false is written: oneof members carry presence", .boolean(false), "08 00"),
        ("integer_value = 2", .integer(300), "10 ac 02"),
        ("integer 0", .integer(0), "10 00"),
        ("integer -1: ten bytes", .integer(-1), "10 ff ff ff ff ff ff ff ff ff 01"),
        ("Int64.max", .integer(.max), "10 ff ff ff ff ff ff ff ff 7f"),
        ("Int64.min", .integer(.min), "10 80 80 80 80 80 80 80 80 80 01"),
        ("double_value = 3: 1.5 = 0x3FF8000000000000", .double(1.5), "19 00 00 00 00 00 00 f8 3f"),
        ("NaN = 0x7FF8000000000000", .double(.nan), "19 00 00 00 00 00 00 f8 7f"),
        ("+infinity", .double(.infinity), "19 00 00 00 00 00 00 f0 7f"),
        ("-infinity", .double(-.infinity), "19 00 00 00 00 00 00 f0 ff"),
        ("-0.0", .double(-0.0), "19 00 00 00 00 00 00 00 80"),
        ("timestamp_value = 10: seconds 1, nanos 5", .timestamp(ts(1, 5)), "52 04 08 01 10 05"),
        ("the epoch: an empty Timestamp", .timestamp(ts(0)), "52 00"),
        (
            "before the epoch: seconds -1 (ten bytes), nanos 999,999,999", .timestamp(ts(-1, 999_999_999)),
            "52 11 08 ff ff ff ff ff ff ff ff ff 01 10 ff 93 eb dc 03"
        ),
        ("string_value = 17 (two-byte tag 8a 01)", .string("abc"), "8a 01 03 61 62 63"),
        ("empty string", .string(""), "8a 01 00"),
        ("unicode string: é = c3 a9", .string("é"), "8a 01 02 c3 a9"),
        ("bytes_value = 18", .bytes(Data([1, 2])), "92 01 02 01 02"),
        ("reference_value = 5", .reference("p"), "2a 01 70"),
        (
            "geo_point_value = 8: LatLng latitude = 1, longitude = 2",
            .geoPoint(GeoPoint(latitude: 1.5, longitude: -2)),
            "42 12 09 00 00 00 00 00 00 f8 3f 11 00 00 00 00 00 00 00 c0"
        ),
        ("geo point 0, 0: zero coordinates left out", .geoPoint(GeoPoint(latitude: 0, longitude: 0)), "42 00"),
        ("array_value = 9: values = 1", .array([1, "a"]), "4a 0a 0a 02 10 01 0a 04 8a 01 01 61"),
        ("empty array", .array([]), "4a 00"),
        ("map_value = 6: fields = 1, entry key = 1, value = 2", .map(["a": true]), "32 09 0a 07 0a 01 61 12 02 08 01"),
        ("empty map", .map([:]), "32 00"),
        (
            "map entries in UTF-8 key order", .map(["b": .null, "a": .null]),
            "32 12 0a 07 0a 01 61 12 02 58 00 0a 07 0a 01 62 12 02 58 00"
        ),
        (
            "nested map", .map(["m": .map(["x": 1])]),
            // inner map_value: 32 09 0a 07 0a 01 78 12 02 10 01 (11 bytes); outer entry: 0a 01 6d 12 0b + 11 = 16
            "32 12 0a 10 0a 01 6d 12 0b 32 09 0a 07 0a 01 78 12 02 10 01"
        ),
    ]

    @Test("each value type encodes to the bytes worked out from document.proto", arguments: encodings)
    func encodes(name: String, value: FirestoreValue, bytes: String) throws {
        #expect(value.protobuf == hex(bytes), "\(name)")
        #expect(try FirestoreValue(protobuf: hex(bytes)) == value, "\(name)")
    }

    static let roundTrips: [FirestoreValue] = [
        .null, true, false, 0, 1, -1, .integer(.max), .integer(.min), .integer(Int64(Int32.min) - 1),
        .double(.nan), .double(.infinity), .double(-.infinity), .double(-0.0), .double(.leastNonzeroMagnitude),
        .double(.greatestFiniteMagnitude), .double(0.1),
        .timestamp(ts(1_714_564_800, 123_456_789)), .timestamp(.minimum), .timestamp(.maximum),
        .string("plain"), .string("ünïcödé ✓ 🍎 \u{0}"), .string(String(repeating: "x", count: 300)),
        .bytes(Data()), .bytes(Data((0...255).map { UInt8($0) })),
        .reference("projects/p/databases/(default)/documents/fruits/apple"),
        .geoPoint(GeoPoint(latitude: -90, longitude: 180)), .geoPoint(GeoPoint(latitude: 1e-300, longitude: -0.0)),
        .array([]), .array([.null, .array([]), .map([:]), .map(["a": [1, 2]])]),
        .map([:]), .map(["": "empty key", "🍎": "apple", "a.b": 1, "`x`": .map(["deep": .map(["deeper": .null])])]),
        .map(["__type__": "__vector__", "value": .array([0.5, -1.5])]),
    ]

    @Test("every value round-trips", arguments: roundTrips)
    func roundTrip(value: FirestoreValue) throws {
        let decoded = try FirestoreValue(protobuf: value.protobuf)
        #expect(decoded == value)
        if case .double(let number) = value, case .double(let again) = decoded {
            #expect(number.bitPattern == again.bitPattern, "the bit pattern is kept (NaN payload, sign of zero)")
        }
    }

    @Test("the last oneof member wins; duplicate map keys keep the last value")
    func lastMemberWins() throws {
        #expect(try FirestoreValue(protobuf: hex("10 01 8a 01 01 61")) == "a")
        // map_value { fields { key "a", value 1 } fields { key "a", value 2 } }
        let duplicate = hex("32 12 0a 07 0a 01 61 12 02 10 01 0a 07 0a 01 61 12 02 10 02")
        #expect(try FirestoreValue(protobuf: duplicate) == ["a": 2])
    }

    @Test("a map entry without a key has the key \"\"; one without a value is an error")
    func mapEntryDefaults() throws {
        #expect(try FirestoreValue(protobuf: hex("32 06 0a 04 12 02 08 01")) == ["": true])
        #expect(
            throws: FirestoreError(
                code: .dataLoss,
                message: "Value.map_value.fields: unknown value type (the entry \"a\" has no value) at byte 4")
        ) {
            try FirestoreValue(protobuf: hex("32 05 0a 03 0a 01 61"))
        }
    }

    @Test("a Document: name = 1, fields = 2, create_time = 3, update_time = 4")
    func document() throws {
        let document = Document(name: "n", fields: ["a": 1], createTime: ts(1), updateTime: ts(2, 3))
        let bytes = hex("0a 01 6e 12 07 0a 01 61 12 02 10 01 1a 02 08 01 22 04 08 02 10 03")
        #expect(document.protobuf == bytes)
        #expect(try Document(protobuf: bytes) == document)
    }

    @Test("a keys-only Document: no fields, no times")
    func bareDocument() throws {
        #expect(try Document(protobuf: hex("0a 03 63 2f 64")) == Document(name: "c/d"))
        #expect(Document(name: "c/d").protobuf == hex("0a 03 63 2f 64"))
    }

    @Test("Document errors name the field path")
    func documentErrors() {
        #expect(throws: FirestoreError(code: .dataLoss, message: "Document: Document without a name at byte 0")) {
            try Document(protobuf: hex("12 07 0a 01 61 12 02 10 01"))
        }
        #expect(
            throws: FirestoreError(
                code: .dataLoss, message: "Document.fields[\"a\"].string_value: invalid UTF-8 at byte 13")
        ) {
            try Document(protobuf: hex("0a 01 6e 12 09 0a 01 61 12 04 8a 01 01 ff"))
        }
        #expect(
            throws: FirestoreError(
                code: .dataLoss,
                message:
                    "Document.update_time: Timestamp seconds 253402300800 is outside 0001-01-01...9999-12-31 at byte 5")
        ) {
            // update_time { seconds 253,402,300,800 }: one past 9999-12-31T23:59:59
            try Document(protobuf: hex("0a 01 6e 22 07 08 80 83 d1 ff af 07"))
        }
    }
}
