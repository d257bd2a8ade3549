import FirestoreREST

/// Values of the conformance files in the library's read-side type, for query clauses (`firestore-rest.md`
/// §3.2): `"NaN"` is NaN, digit-only numbers are integers and other numbers doubles; a write sentinel
/// (`"Delete"`, `"ServerTimestamp"`, an array starting with `"ArrayUnion"`/`"ArrayRemove"`) throws
/// ``SentinelFound``, since a query value cannot hold one.
enum ConformanceValues {
    /// A write sentinel met where only plain values are allowed.
    struct SentinelFound: Error, CustomStringConvertible {
        var name: String

        init(name: String) {
            self.name = name
        }

        var description: String { "sentinel \(name)" }
    }

    /// The plain value of `json`.
    /// - Throws: ``SentinelFound`` for a write sentinel.
    static func value(_ json: JSONValue) throws -> FirestoreValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .boolean(flag)
        case .integer(let number): return .integer(number)
        case .double(let number): return .double(number)
        case .string("NaN"): return .double(.nan)
        case .string(let text):
            if text == "Delete" || text == "ServerTimestamp" { throw SentinelFound(name: text) }
            return .string(text)
        case .array(let elements):
            if case .string(let first)? = elements.first, first == "ArrayUnion" || first == "ArrayRemove" {
                throw SentinelFound(name: first)
            }
            return .array(try elements.map(value))
        case .object(let members):
            return .map(try members.mapValues(value))
        }
    }

    /// The plain value of the JSON text `text` (a `jsonValue` or `jsonData` string).
    static func value(text: String) throws -> FirestoreValue {
        try value(JSONValue.parse(text))
    }
}
