import FirestoreREST
import Foundation

/// The inputs of the conformance write tests in the library's types (`firestore-rest.md` §3.2).
enum WriteConformanceInput {
    /// A `jsonData` value: `"Delete"` = `FieldValue.delete()`, `"ServerTimestamp"` = serverTimestamp, an
    /// array starting with `"ArrayUnion"`/`"ArrayRemove"` = that sentinel with the rest as arguments, `"NaN"` =
    /// NaN; digit-only numbers are integers (``JSONValue/integer(_:)``), others doubles.
    static func writeValue(_ json: JSONValue) -> FieldValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .boolean(flag)
        case .integer(let number): return .integer(number)
        case .double(let number): return .double(number)
        case .string("Delete"): return .delete
        case .string("ServerTimestamp"): return .serverTimestamp
        case .string("NaN"): return .double(.nan)
        case .string(let text): return .string(text)
        case .array(let elements):
            switch elements.first {
            case .string("ArrayUnion")?: return .arrayUnion(elements.dropFirst().map(writeValue))
            case .string("ArrayRemove")?: return .arrayRemove(elements.dropFirst().map(writeValue))
            default: return .array(elements.map(writeValue))
            }
        case .object(let members): return .map(members.mapValues(writeValue))
        }
    }

    /// The `jsonData` of a create, set or update test: a JSON object in a string.
    static func data(_ spec: JSONValue) throws -> [String: FieldValue] {
        guard case .string(let text)? = spec["jsonData"] else {
            throw ConformanceData.LoadError(description: "no jsonData")
        }
        guard case .object(let members) = try JSONValue.parse(text) else {
            throw ConformanceData.LoadError(description: "jsonData is not an object: \(text)")
        }
        return members.mapValues(writeValue)
    }

    /// A conformance `FieldPath` `{"field": [segments]}`. An empty path or segment throws the library's
    /// ``FirestoreError`` (`update-paths-fp-empty*`).
    static func fieldPath(_ json: JSONValue) throws -> FieldPath {
        let segments = try (json["field"]?.arrayValue ?? []).map { segment -> String in
            guard case .string(let text) = segment else {
                throw ConformanceData.LoadError(description: "field path segment is a \(segment.typeName)")
            }
            return text
        }
        return try FieldPath(segments)
    }

    /// A conformance `Precondition`: `{"exists": bool}` or `{"updateTime": RFC 3339}`.
    static func precondition(_ json: JSONValue) throws -> Precondition {
        if case .bool(let flag)? = json["exists"] { return .exists(flag) }
        if case .string(let text)? = json["updateTime"] { return .updateTime(try Timestamp(rfc3339: text)) }
        throw ConformanceData.LoadError(description: "unknown precondition \(json.serializedString())")
    }
}

/// Commit requests compared by proto3 JSON meaning (`firestore-rest.md` §3.1): object members are unordered; a member holding
/// a default scalar or an empty list (`false`, `0`, `""`, `null`, `[]`) equals an absent one, except the members
/// of a oneof (which are always written); but an object is never a default, so a present-but-empty
/// `updateMask`, `currentDocument` or `fields` differs from an absent one. Numbers compare by value. Stricter
/// than ``ProtoJSON/equal(_:_:)`` on oneofs: `currentDocument: {exists: false}` differs from `{}`.
enum CommitJSON {
    /// Members of a oneof in the write and value messages: always meaningful, even when they hold a default.
    static let oneofMembers: Set<String> = [
        "nullValue", "booleanValue", "integerValue", "doubleValue", "timestampValue", "stringValue", "bytesValue",
        "referenceValue", "geoPointValue", "arrayValue", "mapValue", "exists", "updateTime", "update", "delete",
        "transform", "setToServerValue", "increment", "maximum", "minimum", "appendMissingElements",
        "removeAllFromArray",
    ]

    static func normalized(_ json: JSONValue) -> JSONValue {
        switch json {
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            for (key, value) in members {
                let inner = normalized(value)
                if isDefault(inner) && !oneofMembers.contains(key) { continue }
                kept[key] = inner
            }
            return .object(kept)
        case .array(let elements): return .array(elements.map(normalized))
        case .integer(let number): return .double(Double(number))
        default: return json
        }
    }

    static func isDefault(_ json: JSONValue) -> Bool {
        switch json {
        case .null, .bool(false), .string(""), .array([]): return true
        case .double(let number): return number == 0
        default: return false
        }
    }
}
