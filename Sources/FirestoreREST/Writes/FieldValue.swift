import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value to write: a plain ``FirestoreValue``, a map or array of write values, or one of the `FieldValue`
/// sentinels that the server resolves (REST reference: `Write.updateTransforms`, `DocumentTransform.FieldTransform`).
///
/// ``FirestoreValue`` stays the read side: what a document holds. `FieldValue` is what `setData`, `updateData`
/// and `create` take, so a write can mix plain data with sentinels. Literals build it exactly as they build a
/// ``FirestoreValue``, and the sentinels read as in the Firebase SDKs (the type has their name):
///
/// ```swift
/// try await apple.setData([
///     "name": "Apple", "count": 3, "stats": ["kcal": 52],
///     "updated": FieldValue.serverTimestamp(),
///     "views": .increment(Int64(1)),
///     "tags": .arrayUnion(["red"]),
/// ])
/// ```
///
/// Where each sentinel may appear is checked when the write is encoded, before anything is sent, as the
/// conformance tests pin (`create-*`, `set-*`, `update-*`, `update-paths-*`): no sentinel inside an array (nor
/// inside `arrayUnion`/`arrayRemove` arguments), ``delete`` only in `setData(_:merge:)` with merge, at a
/// `mergeFields` path, or as a top-level value of `updateData`, and only numbers for
/// `increment`, `maximum` and `minimum`. A violation throws ``FirestoreError`` `.invalidArgument` naming the
/// field.
public indirect enum FieldValue: Sendable, Hashable {
    /// A plain value, written as is (its maps and arrays hold no sentinels).
    case value(FirestoreValue)
    /// A map whose values may hold sentinels (`mapValue`).
    case map([String: FieldValue])
    /// An array (`arrayValue`). Its elements may not be sentinels or arrays: checked when encoded.
    case array([FieldValue])
    /// `FieldValue.delete()`: removes the field. Encoded as a path in the update mask with no value.
    case delete
    /// `FieldValue.serverTimestamp()`: the commit time, set by the server (`setToServerValue: REQUEST_TIME`).
    case serverTimestamp
    /// `FieldValue.increment(_:)`: adds an integer or double to the field (`increment` transform); a missing
    /// or non-numeric field is set to the operand.
    case increment(FirestoreValue)
    /// `FieldValue.arrayUnion(_:)`: appends each element the array does not hold yet
    /// (`appendMissingElements` transform); a missing or non-array field becomes these elements.
    case arrayUnion([FieldValue])
    /// `FieldValue.arrayRemove(_:)`: removes every instance of each element (`removeAllFromArray` transform);
    /// a missing or non-array field becomes an empty array.
    case arrayRemove([FieldValue])
    /// `FieldValue.maximum(_:)`: sets the field to the larger of itself and the operand (`maximum` transform).
    case maximum(FirestoreValue)
    /// `FieldValue.minimum(_:)`: sets the field to the smaller of itself and the operand (`minimum` transform).
    case minimum(FirestoreValue)

    /// A plain value. Maps and arrays are kept as ``value(_:)``; they hold no sentinels.
    public init(_ value: FirestoreValue) { self = .value(value) }

    /// Whether this is a sentinel other than ``delete``: a value the server computes, sent as a field
    /// transform (`updateTransforms`) instead of a field value.
    package var isTransform: Bool {
        switch self {
        case .serverTimestamp, .increment, .arrayUnion, .arrayRemove, .maximum, .minimum: return true
        case .value, .map, .array, .delete: return false
        }
    }

    /// This value as a plain ``FirestoreValue`` when it holds no sentinel anywhere, else `nil`.
    package var plainValue: FirestoreValue? {
        switch self {
        case .value(let value): return value
        case .map(let fields):
            var plain: [String: FirestoreValue] = [:]
            plain.reserveCapacity(fields.count)
            for (name, element) in fields {
                guard let value = element.plainValue else { return nil }
                plain[name] = value
            }
            return .map(plain)
        case .array(let elements):
            var plain: [FirestoreValue] = []
            plain.reserveCapacity(elements.count)
            for element in elements {
                guard let value = element.plainValue else { return nil }
                plain.append(value)
            }
            return .array(plain)
        case .delete, .serverTimestamp, .increment, .arrayUnion, .arrayRemove, .maximum, .minimum: return nil
        }
    }
}

// MARK: - Sentinels in Firebase spelling

extension FieldValue {
    /// `FieldValue.delete()`: removes the field (see ``delete``).
    public static func delete() -> FieldValue { .delete }

    /// `FieldValue.serverTimestamp()`: the server's commit time (see ``serverTimestamp``).
    public static func serverTimestamp() -> FieldValue { .serverTimestamp }

    /// `FieldValue.increment(_:)` by a 64-bit integer.
    public static func increment(_ amount: Int64) -> FieldValue { .increment(.integer(amount)) }

    /// `FieldValue.increment(_:)` by an integer.
    public static func increment(_ amount: Int) -> FieldValue { .increment(.integer(Int64(amount))) }

    /// `FieldValue.increment(_:)` by a double.
    public static func increment(_ amount: Double) -> FieldValue { .increment(.double(amount)) }

    /// `FieldValue.maximum(_:)` with a 64-bit integer operand.
    public static func maximum(_ operand: Int64) -> FieldValue { .maximum(.integer(operand)) }

    /// `FieldValue.maximum(_:)` with a double operand.
    public static func maximum(_ operand: Double) -> FieldValue { .maximum(.double(operand)) }

    /// `FieldValue.minimum(_:)` with a 64-bit integer operand.
    public static func minimum(_ operand: Int64) -> FieldValue { .minimum(.integer(operand)) }

    /// `FieldValue.minimum(_:)` with a double operand.
    public static func minimum(_ operand: Double) -> FieldValue { .minimum(.double(operand)) }
}

// MARK: - Plain values in FirestoreValue spelling

extension FieldValue {
    /// `nullValue`, as ``FirestoreValue/null``.
    public static var null: FieldValue { .value(.null) }
    /// `booleanValue`, as ``FirestoreValue/boolean(_:)``.
    public static func boolean(_ flag: Bool) -> FieldValue { .value(.boolean(flag)) }
    /// `integerValue`, as ``FirestoreValue/integer(_:)``.
    public static func integer(_ number: Int64) -> FieldValue { .value(.integer(number)) }
    /// `doubleValue`, as ``FirestoreValue/double(_:)``.
    public static func double(_ number: Double) -> FieldValue { .value(.double(number)) }
    /// `timestampValue`, as ``FirestoreValue/timestamp(_:)``.
    public static func timestamp(_ time: Timestamp) -> FieldValue { .value(.timestamp(time)) }
    /// `stringValue`, as ``FirestoreValue/string(_:)``.
    public static func string(_ text: String) -> FieldValue { .value(.string(text)) }
    /// `bytesValue`, as ``FirestoreValue/bytes(_:)``.
    public static func bytes(_ data: Data) -> FieldValue { .value(.bytes(data)) }
    /// `referenceValue` (a full document resource name), as ``FirestoreValue/reference(_:)``.
    public static func reference(_ name: String) -> FieldValue { .value(.reference(name)) }
    /// `geoPointValue`, as ``FirestoreValue/geoPoint(_:)``.
    public static func geoPoint(_ point: GeoPoint) -> FieldValue { .value(.geoPoint(point)) }
}

extension FieldValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// `"text"` is a `stringValue`.
    public init(stringLiteral value: String) { self = .value(.string(value)) }
    /// `3` is an `integerValue`.
    public init(integerLiteral value: Int64) { self = .value(.integer(value)) }
    /// `true` is a `booleanValue`.
    public init(booleanLiteral value: Bool) { self = .value(.boolean(value)) }
    /// `0.5` is a `doubleValue`.
    public init(floatLiteral value: Double) { self = .value(.double(value)) }
    /// `nil` is a `nullValue`.
    public init(nilLiteral: ()) { self = .value(.null) }
    /// `[1, "a"]` is an `arrayValue` (whose elements may not be sentinels; checked when encoded).
    public init(arrayLiteral elements: FieldValue...) { self = .array(elements) }
    /// `["k": 1]` is a `mapValue` whose values may be sentinels; a repeated key keeps the last value.
    public init(dictionaryLiteral elements: (String, FieldValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension FieldValue: CustomStringConvertible {
    /// Plain values print as their JSON form; sentinels in Firebase spelling, e.g. `FieldValue.increment(1)`.
    public var description: String {
        switch self {
        case .value(let value): return value.description
        case .map(let fields):
            let members = fields.sorted { $0.key < $1.key }.map {
                "\(JSONValue.string($0.key).serializedString()): \($0.value)"
            }
            return "{" + members.joined(separator: ",") + "}"
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .delete: return "FieldValue.delete()"
        case .serverTimestamp: return "FieldValue.serverTimestamp()"
        case .increment(let amount): return "FieldValue.increment(\(amount))"
        case .arrayUnion(let elements): return "FieldValue.arrayUnion(\(FieldValue.array(elements)))"
        case .arrayRemove(let elements): return "FieldValue.arrayRemove(\(FieldValue.array(elements)))"
        case .maximum(let operand): return "FieldValue.maximum(\(operand))"
        case .minimum(let operand): return "FieldValue.minimum(\(operand))"
        }
    }
}

extension Dictionary where Key == String, Value == FieldValue {
    /// The write form of plain document data, e.g. a snapshot's ``DocumentSnapshot/data()``:
    /// `try await copy.setData([String: FieldValue](snapshot.data() ?? [:]))`.
    /// - Complexity: O(n) in the number of top-level fields (values are wrapped, not copied).
    public init(_ fields: [String: FirestoreValue]) {
        self = fields.mapValues(FieldValue.value)
    }
}
