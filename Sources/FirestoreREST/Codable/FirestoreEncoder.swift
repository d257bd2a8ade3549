import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Encodes `Encodable` Swift values as Firestore data: the Firebase SDK's `Firestore.Encoder`.
///
/// ```swift
/// struct Fruit: Codable {
///     @DocumentID var id: String?                 // never written
///     var name: String
///     @ServerTimestamp var updated: Timestamp?    // nil: the server's commit time
/// }
/// try await db.document("fruits/apple").setData(from: Fruit(name: "Apple"))
/// let fields = try FirestoreEncoder().encode(Fruit(name: "Apple"))  // [String: FirestoreValue]; refuses sentinels
/// ```
///
/// What each Swift type writes (as the Firebase Apple SDK's `Firestore.Encoder`; REST reference: `Value`):
/// - `Bool` `booleanValue`; `String` `stringValue`; `URL` its absolute string.
/// - Every integer type `integerValue`; `UInt`/`UInt64` above `Int64.max` is an `EncodingError.invalidValue`
///   (never a wrap).
/// - `Double`/`Float` `doubleValue`, NaN and ±infinity included (REST writes them as the strings `"NaN"`,
///   `"Infinity"`, `"-Infinity"`; `CodableFieldCaseTests.c18...`).
/// - ``Timestamp`` `timestampValue` (nanoseconds as given); `Date` per ``dateEncodingStrategy``; `Data` per
///   ``dataEncodingStrategy``; ``GeoPoint`` `geoPointValue`; ``DocumentReference`` `referenceValue`;
///   ``FirestoreValue`` as it is; ``FieldValue`` sentinels (`FieldValue.serverTimestamp()`, `.increment(_:)`,
///   …) as sentinels.
/// - Structs and dictionaries `mapValue`, arrays `arrayValue`, enums with raw values their raw value.
/// - A `nil` optional is left out (the SDK's rule) unless ``nilEncodingStrategy`` is ``NilEncodingStrategy/null``
///   or the property is ``ExplicitNull``, which write `nullValue`.
/// - ``DocumentID`` properties are skipped; a `nil` ``ServerTimestamp`` is `FieldValue.serverTimestamp()`.
///
/// The top-level value must encode as a map (a struct, a class, a dictionary): anything else is an
/// `EncodingError.invalidValue` (a top-level value that is not a map: an array of models, a bare reference or
/// sentinel). Firestore's own limits (no array directly inside an array, no empty or `__reserved__` field names) are
/// checked when the data is written (``DocumentReference/setData(from:merge:encoder:)``), not here.
public struct FirestoreEncoder: Sendable {
    /// How property names become field names. Default ``KeyEncodingStrategy-swift.enum/useDefaultKeys``.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// How a `Date` is written. Default ``DateEncodingStrategy-swift.enum/timestamp``.
    public var dateEncodingStrategy: DateEncodingStrategy = .timestamp
    /// How `Data` is written. Default ``DataEncodingStrategy-swift.enum/blob``.
    public var dataEncodingStrategy: DataEncodingStrategy = .blob
    /// What a `nil` optional becomes. Default ``NilEncodingStrategy/omit``; `.null` writes `nullValue`
    /// (`CodableFieldCaseTests.c15NullStrategyPutsTheNilFieldInTheMergeMask`).
    public var nilEncodingStrategy: NilEncodingStrategy = .omit
    /// Values handed to the encoded types through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// An encoder with the SDK's defaults.
    public init() {}

    /// Encodes `value` as document data of plain values.
    ///
    /// A value holding a write sentinel (a `nil` ``ServerTimestamp``, a ``FieldValue`` such as
    /// `FieldValue.increment(1)`) has no plain form: this throws for it, naming the field; write such a model
    /// with ``encodeForWrite(_:)`` or ``DocumentReference/setData(from:merge:encoder:)``.
    /// - Returns: the fields, e.g. `["name": .string("Apple"), "kcal": .integer(52)]`.
    /// - Throws: `EncodingError.invalidValue` when the value does not encode as a map, when it holds a
    ///   sentinel, or for a value Firestore cannot hold (`UInt64` above `Int64.max`); a type's own error.
    /// - Complexity: O(n) in the size of the value.
    public func encode<T: Encodable>(_ value: T) throws -> [String: FirestoreValue] {
        let fields = try encodeForWrite(value)
        var plain: [String: FirestoreValue] = [:]
        plain.reserveCapacity(fields.count)
        for (name, field) in fields {
            plain[name] = try Self.plain(field, at: CodingPathNode.root.appending(StringCodingKey(name)), of: value)
        }
        return plain
    }

    /// Encodes `value` as document data to write: plain values, plus write sentinels where the model holds
    /// them (a `nil` ``ServerTimestamp`` is ``FieldValue/serverTimestamp``). This is what
    /// ``DocumentReference/setData(from:merge:encoder:)`` sends.
    /// - Returns: the fields, e.g. `["name": "Apple", "updated": .serverTimestamp]`.
    /// - Throws: `EncodingError.invalidValue` when the value does not encode as a map, or for a value Firestore
    ///   cannot hold; a type's own error.
    /// - Complexity: O(n) in the size of the value.
    public func encodeForWrite<T: Encodable>(_ value: T) throws -> [String: FieldValue] {
        try encodeForWrite(value, documentPath: nil)
    }

    /// Encodes any value (not only a map), for instance a filter operand:
    /// `whereField("status", isEqualTo: try FirestoreEncoder().encodeValue(Status.active))`.
    /// - Throws: as ``encode(_:)`` (a sentinel has no plain form), except that any shape is accepted.
    /// - Complexity: O(n) in the size of the value.
    public func encodeValue<T: Encodable>(_ value: T) throws -> FirestoreValue {
        let encoded = try FirestoreEncoderImpl.encodeTopLevel(
            value, context: EncodingContext(options: self, documentPath: nil))
        return try Self.plain(encoded, at: .root, of: value)
    }

    /// ``encodeForWrite(_:)`` with the document path named in error messages.
    func encodeForWrite<T: Encodable>(_ value: T, documentPath: String?) throws -> [String: FieldValue] {
        let context = EncodingContext(options: self, documentPath: documentPath)
        let encoded = try FirestoreEncoderImpl.encodeTopLevel(value, context: context)
        switch encoded {
        case .map(let fields): return fields
        case .value(.map(let fields)): return [String: FieldValue](fields)
        default:
            let kind = encoded.plainValue?.typeName ?? encoded.description
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription: (documentPath.map { $0 + ": " } ?? "")
                        + "top-level \(T.self) encoded as \(kind), not as a map: document data is a map of fields"))
        }
    }

    /// The plain form of `value`, or `invalidValue` naming the first sentinel's place.
    static func plain(_ value: FieldValue, at node: CodingPathNode, of root: Any) throws -> FirestoreValue {
        switch value {
        case .value(let plain): return plain
        case .map(let fields):
            var plain: [String: FirestoreValue] = [:]
            plain.reserveCapacity(fields.count)
            for (name, element) in fields {
                plain[name] = try Self.plain(element, at: node.appending(StringCodingKey(name)), of: root)
            }
            return .map(plain)
        case .array(let elements):
            var plain: [FirestoreValue] = []
            plain.reserveCapacity(elements.count)
            for (position, element) in elements.enumerated() {
                plain.append(try Self.plain(element, at: node.appending(index: position), of: root))
            }
            return .array(plain)
        case .delete, .serverTimestamp, .increment, .arrayUnion, .arrayRemove, .maximum, .minimum:
            let place = node.dotted
            throw EncodingError.invalidValue(
                root,
                EncodingError.Context(
                    codingPath: node.path,
                    debugDescription: (place.isEmpty ? "" : place + ": ")
                        + "\(value) is a write sentinel, not a value; use encodeForWrite(_:) or setData(from:)"))
        }
    }
}

/// The settings of one encoding call, shared by every container of the call.
final class EncodingContext {
    let keyStrategy: FirestoreEncoder.KeyEncodingStrategy
    let dateStrategy: FirestoreEncoder.DateEncodingStrategy
    let dataStrategy: FirestoreEncoder.DataEncodingStrategy
    let writesNull: Bool
    let usesDefaultKeys: Bool
    let userInfo: [CodingUserInfoKey: Any]
    /// The document being written, for error messages.
    let documentPath: String?

    init(options: FirestoreEncoder, documentPath: String?) {
        self.keyStrategy = options.keyEncodingStrategy
        self.dateStrategy = options.dateEncodingStrategy
        self.dataStrategy = options.dataEncodingStrategy
        self.writesNull = options.nilEncodingStrategy == .null
        if case .useDefaultKeys = options.keyEncodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
        var info: [CodingUserInfoKey: Any] = [:]
        for (key, value) in options.userInfo { info[key] = value }
        self.userInfo = info
        self.documentPath = documentPath
    }
}
