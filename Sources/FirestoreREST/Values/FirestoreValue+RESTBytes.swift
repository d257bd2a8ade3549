import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreValue {
    /// Decodes a REST `Value` object straight from its JSON bytes at `reader.index`, with no `JSONValue` in
    /// between, for the common shape only: exactly one camelCase value member (`nullValue: null`,
    /// `integerValue` as a decimal string or an integer-shaped number, in `Int64`, `doubleValue` as a
    /// number or `"NaN"`/`"Infinity"`/`"-Infinity"`, `geoPointValue` with numeric `latitude`/`longitude`,
    /// `arrayValue`/`mapValue` with only `values`/`fields`, ...). Anything else, valid or not, is `nil`, and the
    /// caller leaves the bytes to `JSONValue.parse` and ``init(restJSON:at:)``; when this returns a value, that
    /// path returns the same value (the differential tests in `RESTByteDecodingTests` hold the two together).
    ///
    /// - Complexity: O(n) in the value's bytes.
    package static func decodeREST(_ reader: inout RESTByteReader) -> FirestoreValue? {
        guard reader.beginObject() == true, let name = reader.memberName() else { return nil }
        let value: FirestoreValue?
        switch name.count {
        case 8 where reader.matches(name, "mapValue"): value = decodeMap(&reader)
        case 9 where reader.matches(name, "nullValue"): value = reader.consume("null") ? .null : nil
        case 10 where reader.matches(name, "arrayValue"): value = decodeArray(&reader)
        case 10 where reader.matches(name, "bytesValue"):
            value = reader.string().flatMap(Self.decodeBase64).map { .bytes($0) }
        case 11 where reader.matches(name, "stringValue"): value = reader.string().map { .string($0) }
        case 11 where reader.matches(name, "doubleValue"): value = decodeDouble(&reader)
        case 12 where reader.matches(name, "integerValue"): value = decodeInteger(&reader)
        case 12 where reader.matches(name, "booleanValue"):
            value = reader.consume("true") ? .boolean(true) : reader.consume("false") ? .boolean(false) : nil
        case 13 where reader.matches(name, "geoPointValue"): value = decodeGeoPoint(&reader)
        case 14 where reader.matches(name, "referenceValue"): value = reader.string().map { .reference($0) }
        case 14 where reader.matches(name, "timestampValue"):
            guard let text = reader.rawString() else { return nil }
            let slice = UnsafeBufferPointer(rebasing: reader.bytes[text])
            value = (try? Timestamp(rfc3339UTF8: slice, text: String(decoding: slice, as: UTF8.self)))
                .map { .timestamp($0) }
        default: return nil
        }
        // A second member (a duplicate, an alias, an unknown one) is the tree path's to judge.
        guard let value, reader.nextMember() == false else { return nil }
        return value
    }

    /// The members of a REST `fields` object by name; `nil` for a name given twice (which the parser refuses,
    /// with Swift's `String` equality, as the dictionary here compares) or a value ``decodeREST(_:)`` leaves.
    package static func decodeRESTFields(_ reader: inout RESTByteReader) -> [String: FirestoreValue]? {
        guard let hasMembers = reader.beginObject() else { return nil }
        var fields: [String: FirestoreValue] = [:]
        var more = hasMembers
        while more {
            reader.skipWhitespace()
            guard let name = reader.string() else { return nil }
            reader.skipWhitespace()
            guard reader.peek() == UInt8(ascii: ":") else { return nil }
            reader.index += 1
            reader.skipWhitespace()
            guard let value = decodeREST(&reader), fields.updateValue(value, forKey: name) == nil,
                let next = reader.nextMember()
            else { return nil }
            more = next
        }
        return fields
    }

    private static func decodeInteger(_ reader: inout RESTByteReader) -> FirestoreValue? {
        if let text = reader.rawString() { return reader.integer(text).map { .integer($0) } }
        guard let number = reader.number(), number.isInteger else { return nil }
        return reader.integer(number.range).map { .integer($0) }
    }

    private static func decodeDouble(_ reader: inout RESTByteReader) -> FirestoreValue? {
        guard reader.peek() == UInt8(ascii: "\"") else { return reader.double().map { .double($0) } }
        guard let text = reader.rawString() else { return nil }
        if reader.matches(text, "NaN") { return .double(.nan) }
        if reader.matches(text, "Infinity") { return .double(.infinity) }
        if reader.matches(text, "-Infinity") { return .double(-.infinity) }
        return nil
    }

    private static func decodeGeoPoint(_ reader: inout RESTByteReader) -> FirestoreValue? {
        guard var more = reader.beginObject() else { return nil }
        var latitude: Double?
        var longitude: Double?
        while more {
            guard let name = reader.memberName() else { return nil }
            if reader.matches(name, "latitude"), latitude == nil {
                latitude = reader.double()
                guard latitude != nil else { return nil }
            } else if reader.matches(name, "longitude"), longitude == nil {
                longitude = reader.double()
                guard longitude != nil else { return nil }
            } else {
                return nil
            }
            guard let next = reader.nextMember() else { return nil }
            more = next
        }
        return .geoPoint(GeoPoint(latitude: latitude ?? 0, longitude: longitude ?? 0))
    }

    private static func decodeArray(_ reader: inout RESTByteReader) -> FirestoreValue? {
        guard let hasMembers = reader.beginObject() else { return nil }
        guard hasMembers else { return .array([]) }
        guard let name = reader.memberName(), reader.matches(name, "values") else { return nil }
        var values: [FirestoreValue] = []
        if !reader.consume("null") {
            guard var more = reader.beginArray() else { return nil }
            while more {
                guard let value = decodeREST(&reader), let next = reader.nextElement() else { return nil }
                values.append(value)
                more = next
            }
        }
        guard reader.nextMember() == false else { return nil }
        return .array(values)
    }

    private static func decodeMap(_ reader: inout RESTByteReader) -> FirestoreValue? {
        guard let hasMembers = reader.beginObject() else { return nil }
        guard hasMembers else { return .map([:]) }
        guard let name = reader.memberName(), reader.matches(name, "fields") else { return nil }
        let fields: [String: FirestoreValue]
        if reader.consume("null") {
            fields = [:]
        } else {
            guard let decoded = decodeRESTFields(&reader) else { return nil }
            fields = decoded
        }
        guard reader.nextMember() == false else { return nil }
        return .map(fields)
    }
}
