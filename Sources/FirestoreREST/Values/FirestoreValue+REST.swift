import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreValue {
    /// Decodes a REST `Value` object (`{"integerValue":"42"}`), as the REST reference `Value` describes it:
    /// `integerValue` as a decimal string or a JSON number (full `Int64`); `doubleValue` as a number, a
    /// numeric string, or `"NaN"`, `"Infinity"`, `"-Infinity"`; `timestampValue` through
    /// ``Timestamp/init(rfc3339:)``; `bytesValue` in standard or URL-safe base64; `geoPointValue` with absent
    /// members meaning 0; `arrayValue`/`mapValue` with `values`/`fields` absent meaning empty; `nullValue` as
    /// `null` or `"NULL_VALUE"`. snake_case member names are accepted as proto3 JSON requires; members that
    /// are not value members are ignored.
    ///
    /// - Parameters:
    ///   - json: the `Value` object.
    ///   - path: where the value sits, for error messages (e.g. `"projects/p/.../documents/c/d field tags[2]"`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming `path` when the object has no value member, two
    ///   value members, or a member of the wrong JSON type or format.
    /// - Complexity: O(n) in the size of the value.
    public init(restJSON json: JSONValue, at path: @autoclosure () -> String = "value") throws(FirestoreError) {
        guard case .object(let members) = json else {
            throw .invalidArgument("\(path()): expected a Value object, found \(json.typeName)")
        }
        var found: (kind: Kind, payload: JSONValue)?
        var foundName = ""
        for (key, payload) in members.sorted(by: { $0.key < $1.key }) {
            guard let kind = Kind(memberName: key) else { continue }
            if found != nil {
                throw .invalidArgument(
                    "\(path()): a Value has exactly one member, found both \(foundName) and \(key)")
            }
            found = (kind, payload)
            foundName = key
        }
        guard let (kind, payload) = found else {
            let names = members.keys.sorted().joined(separator: ", ")
            throw .invalidArgument(
                "\(path()): unknown value type" + (names.isEmpty ? " (empty object)" : " (members: \(names))"))
        }
        func mismatch(_ expected: String) -> FirestoreError {
            var found = payload.serializedString()
            if found.count > 100 { found = String(found.prefix(100)) + "... (\(found.utf8.count) bytes)" }
            return .invalidArgument("\(path()): \(kind.rawValue) must be \(expected), found \(found)")
        }
        switch kind {
        case .nullValue:
            guard payload == .null || payload == .string("NULL_VALUE") || payload == .integer(0) else {
                throw mismatch("null")
            }
            self = .null
        case .booleanValue:
            guard case .bool(let flag) = payload else { throw mismatch("a boolean") }
            self = .boolean(flag)
        case .integerValue:
            switch payload {
            case .integer(let number): self = .integer(number)
            case .string(let text):
                guard let number = Int64(text) else { throw mismatch("a decimal 64-bit integer") }
                self = .integer(number)
            case .double(let number):
                // From 2^53 on a JSON double no longer names one integer: 9007199254740993.0 reads as ...992.
                guard number.rounded() == number, abs(number) < 9_007_199_254_740_992,
                    let exact = Int64(exactly: number)
                else {
                    throw mismatch("a 64-bit integer (a decimal string, or a JSON number below 2^53)")
                }
                self = .integer(exact)
            default: throw mismatch("a decimal 64-bit integer")
            }
        case .doubleValue:
            switch payload {
            case .double(let number): self = .double(number)
            case .integer(let number): self = .double(Double(number))
            case .string("NaN"): self = .double(.nan)
            case .string("Infinity"): self = .double(.infinity)
            case .string("-Infinity"): self = .double(-.infinity)
            case .string(let text):
                guard let number = Self.parseFiniteDouble(text) else { throw mismatch("a number") }
                self = .double(number)
            default: throw mismatch("a number")
            }
        case .timestampValue:
            guard case .string(let text) = payload else { throw mismatch("an RFC 3339 string") }
            do {
                self = .timestamp(try Timestamp(rfc3339: text))
            } catch {
                throw .invalidArgument("\(path()): \(error.message)")
            }
        case .stringValue:
            guard case .string(let text) = payload else { throw mismatch("a string") }
            self = .string(text)
        case .bytesValue:
            guard case .string(let text) = payload, let data = Self.decodeBase64(text) else {
                throw mismatch("base64")
            }
            self = .bytes(data)
        case .referenceValue:
            guard case .string(let text) = payload else { throw mismatch("a resource name string") }
            self = .reference(text)
        case .geoPointValue:
            guard case .object(let point) = payload else { throw mismatch("an object") }
            func coordinate(_ name: String, _ snake: String) throws(FirestoreError) -> Double {
                switch point[name] ?? point[snake] {
                case nil: return 0
                case .double(let number)?: return number
                case .integer(let number)?: return Double(number)
                case .string(let text)?:
                    if let number = Self.parseFiniteDouble(text) { return number }
                    throw mismatch("numbers")
                default: throw mismatch("numbers")
                }
            }
            self = .geoPoint(
                GeoPoint(
                    latitude: try coordinate("latitude", "latitude"),
                    longitude: try coordinate("longitude", "longitude")))
        case .arrayValue:
            guard case .object(let array) = payload else { throw mismatch("an object") }
            switch array["values"] {
            case nil, .null?: self = .array([])
            case .array(let elements)?:
                var values: [FirestoreValue] = []
                values.reserveCapacity(elements.count)
                for (position, element) in elements.enumerated() {
                    values.append(try FirestoreValue(restJSON: element, at: "\(path())[\(position)]"))
                }
                self = .array(values)
            default: throw mismatch("an object with a values array")
            }
        case .mapValue:
            guard case .object(let map) = payload else { throw mismatch("an object") }
            switch map["fields"] {
            case nil, .null?: self = .map([:])
            case .object(let fields)?:
                self = .map(try Self.decodeFields(fields, prefix: path()))
            default: throw mismatch("an object with a fields object")
            }
        }
    }

    /// Decodes a REST `fields` object (`{name: Value}`) into a map.
    /// - Parameters:
    ///   - fields: the members of the `fields` object.
    ///   - prefix: the location of the enclosing map for error messages (`"field profile"`); empty at the top
    ///     level of a document, where errors read `field tags[2]: ...`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the field path (quoted as in
    ///   ``FieldPath``) of the bad value; with several bad values, the first by name, so the error does not depend
    ///   on the dictionary's order (which differs from one dictionary to the next).
    package static func decodeFields(_ fields: [String: JSONValue], prefix: String = "") throws(FirestoreError)
        -> [String: FirestoreValue]
    {
        var result: [String: FirestoreValue] = [:]
        result.reserveCapacity(fields.count)
        for (name, json) in fields {
            do {
                result[name] = try decodeField(name, json, prefix: prefix)
            } catch {
                // The first bad field by name: only a field not decoded yet that sorts before this one can come
                // first, so each field is decoded at most once (a bad value deep in nested maps costs one pass, not
                // one per level).
                for (other, json) in fields.sorted(by: { $0.key < $1.key }) where other < name && result[other] == nil {
                    _ = try decodeField(other, json, prefix: prefix)
                }
                throw error
            }
        }
        return result
    }

    private static func decodeField(_ name: String, _ json: JSONValue, prefix: String) throws(FirestoreError)
        -> FirestoreValue
    {
        // The location is an autoclosure: the quoted segment is made only for an error's message.
        try FirestoreValue(
            restJSON: json,
            at: prefix.isEmpty
                ? "field \(FieldPath.quoteSegment(name))" : "\(prefix).\(FieldPath.quoteSegment(name))")
    }

    /// This value as a REST `Value` object, the form the server accepts: `integerValue` as a decimal string,
    /// non-finite doubles as `"NaN"`/`"Infinity"`/`"-Infinity"`, timestamps through ``Timestamp/rfc3339``,
    /// bytes in standard base64 with padding, `geoPointValue` with both members.
    /// - Complexity: O(n) in the size of the value.
    public var restJSON: JSONValue {
        switch self {
        case .null: return ["nullValue": .null]
        case .boolean(let flag): return ["booleanValue": .bool(flag)]
        case .integer(let number): return ["integerValue": .string(String(number))]
        case .double(let number):
            if number.isNaN { return ["doubleValue": "NaN"] }
            if number.isInfinite { return ["doubleValue": .string(number < 0 ? "-Infinity" : "Infinity")] }
            return ["doubleValue": .double(number)]
        case .timestamp(let time): return ["timestampValue": .string(time.rfc3339)]
        case .string(let text): return ["stringValue": .string(text)]
        case .bytes(let data): return ["bytesValue": .string(data.base64EncodedString())]
        case .reference(let name): return ["referenceValue": .string(name)]
        case .geoPoint(let point):
            return ["geoPointValue": ["latitude": .double(point.latitude), "longitude": .double(point.longitude)]]
        case .array(let elements):
            return ["arrayValue": ["values": .array(elements.map(\.restJSON))]]
        case .map(let fields):
            return ["mapValue": ["fields": .object(fields.mapValues(\.restJSON))]]
        }
    }

    /// Encodes a map's fields as a REST `fields` object.
    package static func encodeFields(_ fields: [String: FirestoreValue]) -> JSONValue {
        .object(fields.mapValues(\.restJSON))
    }

    /// The value members of a REST `Value` and their snake_case aliases.
    enum Kind: String {
        case nullValue, booleanValue, integerValue, doubleValue, timestampValue, stringValue, bytesValue
        case referenceValue, geoPointValue, arrayValue, mapValue

        init?(memberName: String) {
            if let kind = Kind(camelCase: memberName) {
                self = kind
                return
            }
            switch memberName {
            case "null_value": self = .nullValue
            case "boolean_value": self = .booleanValue
            case "integer_value": self = .integerValue
            case "double_value": self = .doubleValue
            case "timestamp_value": self = .timestampValue
            case "string_value": self = .stringValue
            case "bytes_value": self = .bytesValue
            case "reference_value": self = .referenceValue
            case "geo_point_value": self = .geoPointValue
            case "array_value": self = .arrayValue
            case "map_value": self = .mapValue
            default: return nil
            }
        }

        /// `Kind(rawValue:)` without its string switch (`_findStringSwitchCase` compares the name with each case in
        /// turn, the largest cost left in decoding a REST document's fields): the name's length picks at most two
        /// candidates, each compared once.
        init?(camelCase name: String) {
            let kind: Kind
            switch name.utf8.count {
            case 8: kind = .mapValue
            case 9: kind = .nullValue
            case 10: kind = name.utf8.first == UInt8(ascii: "a") ? .arrayValue : .bytesValue
            case 11: kind = name.utf8.first == UInt8(ascii: "s") ? .stringValue : .doubleValue
            case 12: kind = name.utf8.first == UInt8(ascii: "i") ? .integerValue : .booleanValue
            case 13: kind = .geoPointValue
            case 14: kind = name.utf8.first == UInt8(ascii: "r") ? .referenceValue : .timestampValue
            default: return nil
            }
            guard name == kind.rawValue else { return nil }
            self = kind
        }
    }

    /// A finite double from a JSON-number-shaped string (`"4.2"`, `"-1e3"`), or `nil`. Swift's own `Double`
    /// parser would also take `"nan"`, `"inf"` and hex floats, which proto3 JSON does not allow.
    static func parseFiniteDouble(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ Self.numberBytes.contains($0) }),
            let number = Double(text), number.isFinite
        else { return nil }
        return number
    }

    private static let numberBytes: Set<UInt8> = Set("0123456789+-.eE".utf8)

    /// Standard or URL-safe base64, with or without padding (proto3 JSON accepts both alphabets).
    ///
    /// The text is checked first (alphabet, padding only at the end and only as much as the length needs),
    /// because Foundation's decoder accepts some malformed texts (`"===="`) and returns made-up bytes.
    package static func decodeBase64(_ text: String) -> Data? {
        var bytes = Array(text.utf8)
        var padding = 0
        while bytes.last == UInt8(ascii: "=") {
            bytes.removeLast()
            padding += 1
        }
        let remainder = bytes.count % 4
        guard padding <= 2, remainder != 1, padding == 0 || (bytes.count + padding) % 4 == 0 else { return nil }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                continue
            case UInt8(ascii: "-"): bytes[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): bytes[index] = UInt8(ascii: "/")
            default: return nil
            }
        }
        if remainder > 0 { bytes.append(contentsOf: repeatElement(UInt8(ascii: "="), count: 4 - remainder)) }
        return Data(base64Encoded: Data(bytes))
    }
}
