import FirestoreREST
import FirestoreTesting

/// Semantic equality of proto3 JSON messages, as the conformance README asks (`firestore-rest.md` §3.1):
/// maps are unordered; a missing scalar or list equals its default (`false`, `0`, `""`, `[]`); a missing
/// message does NOT equal a present empty one (`"updateMask":{"fieldPaths":[]}` differs from no mask).
enum ProtoJSON {
    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            for key in Set(a.keys).union(b.keys) {
                switch (a[key], b[key]) {
                case (let x?, let y?):
                    if !equal(x, y) { return false }
                case (let only?, nil), (nil, let only?):
                    if !isDefault(only) { return false }
                case (nil, nil):
                    break
                }
            }
            return true
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.integer(let a), .double(let b)), (.double(let b), .integer(let a)):
            return Double(a) == b
        default:
            return lhs == rhs
        }
    }

    /// Whether a member may be left out: a scalar or list at its default value. Messages (objects) never are.
    static func isDefault(_ value: JSONValue) -> Bool {
        switch value {
        case .bool(false), .integer(0), .string(""), .null: return true
        case .double(let number): return number == 0
        case .array(let elements): return elements.isEmpty
        default: return false
        }
    }
}
