import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One Firestore value: every member of the REST `Value` oneof (REST reference: `Value`;
/// `google/firestore/v1/document.proto`).
///
/// Equality follows the wire: `.integer(1)` and `.double(1)` differ, and `.double(.nan)` equals itself
/// (so a document holding NaN compares equal to its own copy). Strings, references and map keys are equal
/// only when their UTF-8 bytes are, as Firestore compares them (Firestore docs, "Ordering of value types"):
/// `.string("\u{E9}")` (NFC `é`) and `.string("e\u{301}")` (NFD) are two values, although Swift's `String ==`
/// calls them equal. A `.map` is a Swift dictionary, so one map cannot hold two keys that differ only in
/// normalization; two maps with such keys are different maps. Literals build values directly:
/// `let v: FirestoreValue = ["name": "apple", "count": 3, "tags": ["red"]]`.
public enum FirestoreValue: Sendable, CustomStringConvertible {
    /// `nullValue`.
    case null
    /// `booleanValue`.
    case boolean(Bool)
    /// `integerValue`: a signed 64-bit integer, a decimal string on the wire.
    case integer(Int64)
    /// `doubleValue`, including NaN and ±infinity (the strings `"NaN"`, `"Infinity"`, `"-Infinity"`).
    case double(Double)
    /// `timestampValue`.
    case timestamp(Timestamp)
    /// `stringValue`.
    case string(String)
    /// `bytesValue`: raw bytes, base64 on the wire.
    case bytes(Data)
    /// `referenceValue`: a full document resource name
    /// (`projects/p/databases/(default)/documents/c/d`).
    case reference(String)
    /// `geoPointValue`.
    case geoPoint(GeoPoint)
    /// `arrayValue`. Firestore refuses an array directly inside an array.
    case array([FirestoreValue])
    /// `mapValue`.
    case map([String: FirestoreValue])

    /// The REST member name of this value's type, e.g. `"integerValue"`.
    public var typeName: String {
        switch self {
        case .null: return "nullValue"
        case .boolean: return "booleanValue"
        case .integer: return "integerValue"
        case .double: return "doubleValue"
        case .timestamp: return "timestampValue"
        case .string: return "stringValue"
        case .bytes: return "bytesValue"
        case .reference: return "referenceValue"
        case .geoPoint: return "geoPointValue"
        case .array: return "arrayValue"
        case .map: return "mapValue"
        }
    }

    /// Whether this is a NaN `doubleValue`.
    public var isNaN: Bool {
        if case .double(let number) = self { return number.isNaN }
        return false
    }

    public var description: String { plainJSON.serializedString() }
}

extension FirestoreValue: Equatable {
    public static func == (lhs: FirestoreValue, rhs: FirestoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.timestamp(let a), .timestamp(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8Equals(b)
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.reference(let a), .reference(let b)): return a.utf8Equals(b)
        case (.geoPoint(let a), .geoPoint(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a.utf8KeyedEquals(b)
        default: return false
        }
    }
}

extension FirestoreValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .boolean(let flag): hasher.combine(flag)
        case .integer(let number): hasher.combine(number)
        case .double(let number):
            // Equal values hash alike: every NaN is one value, and -0.0 == 0.0.
            hasher.combine(number.isNaN ? Double.nan.bitPattern : (number == 0 ? 0 : number).bitPattern)
        case .timestamp(let time): hasher.combine(time)
        case .string(let text): hasher.combineUTF8(text)
        case .bytes(let data): hasher.combine(data)
        case .reference(let name): hasher.combineUTF8(name)
        case .geoPoint(let point): hasher.combine(point)
        case .array(let elements): hasher.combine(elements)
        case .map(let fields): fields.hashUTF8Keyed(into: &hasher)
        }
    }
}

extension FirestoreValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: FirestoreValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, FirestoreValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
