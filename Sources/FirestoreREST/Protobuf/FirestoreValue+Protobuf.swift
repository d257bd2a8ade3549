import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreValue {
    /// Decodes a `google.firestore.v1.Value` message (`google/firestore/v1/document.proto`, oneof
    /// `value_type`) from the current message of `reader`:
    ///
    /// | member | number | becomes |
    /// |---|---|---|
    /// | `null_value` (`google.protobuf.NullValue`) | 11 | ``null`` (only `NULL_VALUE` = 0 is accepted) |
    /// | `boolean_value` | 1 | ``boolean(_:)`` |
    /// | `integer_value` (`int64`) | 2 | ``integer(_:)`` |
    /// | `double_value` | 3 | ``double(_:)``, NaN and ±infinity included |
    /// | `timestamp_value` (`google.protobuf.Timestamp`) | 10 | ``timestamp(_:)`` |
    /// | `string_value` | 17 | ``string(_:)`` |
    /// | `bytes_value` | 18 | ``bytes(_:)`` |
    /// | `reference_value` | 5 | ``reference(_:)`` |
    /// | `geo_point_value` (`google.type.LatLng`: `latitude = 1`, `longitude = 2`) | 8 | ``geoPoint(_:)`` |
    /// | `array_value` (`ArrayValue`: `repeated Value values = 1`) | 9 | ``array(_:)`` |
    /// | `map_value` (`MapValue`: `map<string, Value> fields = 1`) | 6 | ``map(_:)`` |
    ///
    /// As the REST decoder (``init(restJSON:at:)``) ignores members that are not value members, other fields
    /// (newer oneof members such as `field_reference`, `function_value` or `pipeline_value`, which a stored
    /// document never holds) are skipped, and a `Value` with none of the members above is an error (the REST
    /// decoder's "unknown value type"). A vector is a `map_value` with `__type__: "__vector__"` and decodes
    /// as that map, as over REST. When a member appears more than once the last one wins (protobuf's oneof
    /// rule; repeated message members are not merged, which no Firestore server sends). A map entry without a
    /// key has the key `""`; duplicate keys keep the last value.
    ///
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the path and byte offset for malformed wire data,
    ///   ill-formed UTF-8, an out-of-range timestamp, a NaN or infinite coordinate, a `null_value` other than 0,
    ///   or no known member.
    /// - Complexity: O(n) in the size of the value.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        let start = reader.position
        var found: FirestoreValue?
        while let field = try reader.nextField() {
            switch field.number {
            case 11:
                let raw = try reader.readInt32(field, "null_value")
                guard raw == 0 else {
                    throw reader.failure(
                        "must be NULL_VALUE (0), found \(raw)", at: field.offset, field: "null_value")
                }
                found = .null
            case 1: found = .boolean(try reader.readBool(field, "boolean_value"))
            case 2: found = .integer(try reader.readInt64(field, "integer_value"))
            case 3: found = .double(try reader.readDouble(field, "double_value"))
            case 10:
                found = .timestamp(
                    try reader.readMessage(field, "timestamp_value") { (nested) throws(FirestoreError) in
                        try Timestamp(reading: &nested)
                    })
            case 17: found = .string(try reader.readString(field, "string_value"))
            case 18: found = .bytes(try reader.readData(field, "bytes_value"))
            case 5: found = .reference(try reader.readString(field, "reference_value"))
            case 8:
                found = .geoPoint(
                    try reader.readMessage(field, "geo_point_value") { (nested) throws(FirestoreError) in
                        try Self.readLatLng(&nested)
                    })
            case 9:
                found = .array(
                    try reader.readMessage(field, "array_value") { (nested) throws(FirestoreError) in
                        try Self.readArrayValue(&nested)
                    })
            case 6:
                found = .map(
                    try reader.readMessage(field, "map_value") { (nested) throws(FirestoreError) in
                        var fields: [String: FirestoreValue] = [:]
                        while let member = try nested.nextField() {
                            if member.number == 1 {
                                try Self.readMapEntry(member, "fields", from: &nested, into: &fields)
                            } else {
                                try nested.skip(member)
                            }
                        }
                        return fields
                    })
            default:
                try reader.skip(field)
            }
        }
        guard let found else {
            throw reader.failure("unknown value type (a Value with no member this decoder knows)", at: start)
        }
        self = found
    }

    /// Decodes one serialized `google.firestore.v1.Value` message, as ``init(reading:)``; error paths start
    /// with `Value`.
    /// - Throws: as ``init(reading:)``.
    package init(protobuf bytes: [UInt8]) throws(FirestoreError) {
        self = try ProtobufReader.read(bytes, message: "Value") { (reader) throws(FirestoreError) in
            try FirestoreValue(reading: &reader)
        }
    }

    /// Reads one `map<string, Value>` entry (the implicit `{string key = 1; Value value = 2;}` message of a
    /// proto3 map field) of field `field`, named `name`, into `fields`; the value's error path is its key,
    /// `fields["name"]`.
    /// - Throws: ``FirestoreError`` `.dataLoss` for a malformed entry or value; an entry without a value is
    ///   the empty `Value`, so it fails as "unknown value type".
    static func readMapEntry(
        _ field: ProtobufField, _ name: StaticString, from reader: inout ProtobufReader,
        into fields: inout [String: FirestoreValue]
    ) throws(FirestoreError) {
        try reader.readMessage(field, name) { (entry) throws(FirestoreError) in
            let start = entry.position
            var key = ""
            var value: FirestoreValue?
            while let member = try entry.nextField() {
                switch member.number {
                case 1: key = try entry.readString(member, "key")
                case 2:
                    value = try entry.readMessage(member, element: .key(key)) { (nested) throws(FirestoreError) in
                        try FirestoreValue(reading: &nested)
                    }
                default: try entry.skip(member)
                }
            }
            guard let value else {
                throw entry.failure(
                    "unknown value type (the entry \(String(reflecting: key)) has no value)", at: start)
            }
            fields[key] = value
        }
    }

    /// Reads an `ArrayValue` (`repeated Value values = 1`); element error paths are `values[i]`.
    private static func readArrayValue(_ reader: inout ProtobufReader) throws(FirestoreError) -> [FirestoreValue] {
        var values: [FirestoreValue] = []
        while let field = try reader.nextField() {
            guard field.number == 1 else {
                try reader.skip(field)
                continue
            }
            try reader.expect(field, .lengthDelimited, "values")
            values.append(
                try reader.readMessage(field, element: .index(values.count)) { (nested) throws(FirestoreError) in
                    try FirestoreValue(reading: &nested)
                })
        }
        return values
    }

    /// Reads a `google.type.LatLng` (`google/type/latlng.proto`: `double latitude = 1`,
    /// `double longitude = 2`; absent means 0). A NaN or infinite coordinate is refused, as the REST decoder
    /// refuses `"NaN"` and `"Infinity"` coordinates (and ``GeoPoint`` equality could not hold for NaN).
    private static func readLatLng(_ reader: inout ProtobufReader) throws(FirestoreError) -> GeoPoint {
        var latitude = 0.0
        var longitude = 0.0
        while let field = try reader.nextField() {
            switch field.number {
            case 1: latitude = try reader.readDouble(field, "latitude")
            case 2: longitude = try reader.readDouble(field, "longitude")
            default: try reader.skip(field)
            }
            guard latitude.isFinite, longitude.isFinite else {
                let name: StaticString = field.number == 1 ? "latitude" : "longitude"
                throw reader.failure("coordinate must be finite", at: field.offset, field: name)
            }
        }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }

    /// Writes this value's `google.firestore.v1.Value` fields (`google/firestore/v1/document.proto`; member
    /// numbers as in ``init(reading:)``). The oneof member is always written, also when it holds a default
    /// (`false`, `0`, `""`), since oneof members carry presence; inside `Timestamp` and `LatLng` zero fields
    /// are left out as proto3 does (a `-0.0` coordinate is kept). Map entries are written in the byte order of
    /// their UTF-8 keys, so equal values encode to equal bytes.
    /// - Complexity: O(n log n) in the size of the value (the key sort).
    package func writeProtobuf(to writer: inout ProtobufWriter) {
        switch self {
        case .null: writer.writeInt32Field(11, 0)
        case .boolean(let flag): writer.writeBoolField(1, flag)
        case .integer(let number): writer.writeInt64Field(2, number)
        case .double(let number): writer.writeDoubleField(3, number)
        case .timestamp(let time): writer.writeMessageField(10) { time.writeProtobuf(to: &$0) }
        case .string(let text): writer.writeStringField(17, text)
        case .bytes(let data): writer.writeBytesField(18, data)
        case .reference(let name): writer.writeStringField(5, name)
        case .geoPoint(let point):
            writer.writeMessageField(8) { latLng in
                if point.latitude.bitPattern != 0 { latLng.writeDoubleField(1, point.latitude) }
                if point.longitude.bitPattern != 0 { latLng.writeDoubleField(2, point.longitude) }
            }
        case .array(let elements):
            writer.writeMessageField(9) { array in
                for element in elements {
                    array.writeMessageField(1) { element.writeProtobuf(to: &$0) }
                }
            }
        case .map(let fields):
            writer.writeMessageField(6) { map in Self.writeFields(fields, number: 1, to: &map) }
        }
    }

    /// This value as one serialized `google.firestore.v1.Value` message.
    package var protobuf: [UInt8] {
        var writer = ProtobufWriter()
        writeProtobuf(to: &writer)
        return writer.bytes
    }

    /// Writes `fields` as the entries of the `map<string, Value>` field `number` (each entry a message with
    /// `key = 1` and `value = 2`, both always written), in the byte order of the UTF-8 keys.
    /// - Complexity: O(n log n) in the number of keys, plus the size of the values.
    static func writeFields(_ fields: [String: FirestoreValue], number: UInt32, to writer: inout ProtobufWriter) {
        let keys = fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for key in keys {
            guard let value = fields[key] else { continue }
            writer.writeMessageField(number) { entry in
                entry.writeStringField(1, key)
                entry.writeMessageField(2) { value.writeProtobuf(to: &$0) }
            }
        }
    }
}
