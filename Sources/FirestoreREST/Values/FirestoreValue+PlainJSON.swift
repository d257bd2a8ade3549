import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreValue {
    /// This value as plain JSON for people and scripts (the CLI's `data` member): `integerValue` as an exact
    /// JSON integer, doubles as JSON numbers except non-finite ones as the strings `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`, timestamps as RFC 3339 strings, bytes as standard base64, references as the document
    /// path (`fruits/apple`, the part after `/documents/`), geo points as `{"latitude","longitude"}`,
    /// arrays and maps as JSON arrays and objects. A vector (``VectorValue``) is its map,
    /// `{"__type__":"__vector__","value":[0.5,1.0]}`, its elements written with a fraction or an exponent so
    /// that the CLI's plain-JSON reader (`init(plainJSON:)`) reads them back as a vector.
    ///
    /// The mapping is lossy by design (a string and a reference look alike); use ``restJSON`` to round-trip.
    public var plainJSON: JSONValue {
        switch self {
        case .null: return .null
        case .boolean(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .double(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return .string(number < 0 ? "-Infinity" : "Infinity") }
            return .double(number)
        case .timestamp(let time): return .string(time.rfc3339)
        case .string(let text): return .string(text)
        case .bytes(let data): return .string(data.base64EncodedString())
        case .reference(let name):
            // projects/{p}/databases/{d}/documents/{path}: the IDs themselves may be "documents".
            let segments = name.splitUTF8("/")
            if segments.count > 5, segments[0] == "projects", segments[2] == "databases", segments[4] == "documents" {
                return .string(segments.dropFirst(5).joined(separator: "/"))
            }
            return .string(name)
        case .geoPoint(let point):
            return ["latitude": .double(point.latitude), "longitude": .double(point.longitude)]
        case .array(let elements): return .array(elements.map(\.plainJSON))
        case .map(let fields): return .object(fields.mapValues(\.plainJSON))
        }
    }
}
