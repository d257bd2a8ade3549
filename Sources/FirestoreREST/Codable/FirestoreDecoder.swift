import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes Firestore data into `Decodable` Swift types: the Firebase SDK's `Firestore.Decoder`, working
/// directly on ``FirestoreValue`` trees (no JSON round trip).
///
/// ```swift
/// struct Fruit: Codable {
///     @DocumentID var id: String?
///     var name: String
///     var kcal: Int
///     @ServerTimestamp var updated: Timestamp?
/// }
/// let fruit = try snapshot.data(as: Fruit.self)            // or FirestoreDecoder().decode(Fruit.self, from: ...)
/// ```
///
/// What each Swift type reads (as the Firebase Apple SDK's `Firestore.Decoder`; REST reference: `Value`):
/// - `Bool` from `booleanValue`; `String` from `stringValue`.
/// - Every integer type from `integerValue`, range-checked (an overflow is a `DecodingError.dataCorrupted`,
///   never a wrap or a 0), and from a whole-number `doubleValue` that fits exactly (any other double is a
///   `typeMismatch`).
/// - `Double` from `doubleValue` (NaN and ±infinity included) or `integerValue`; `Float` likewise, a finite
///   double too large for `Float` is `dataCorrupted`.
/// - ``Timestamp`` from `timestampValue` (nanoseconds exact) or a `{seconds, nanoseconds}` map; `Date` per
///   ``dateDecodingStrategy``; `Data` per ``dataDecodingStrategy``; ``GeoPoint`` from `geoPointValue` or a
///   `{latitude, longitude}` map; ``DocumentReference`` from `referenceValue` of the same database (needs the
///   client: decode a ``DocumentSnapshot`` or pass `in:`); `URL` from `stringValue`; ``FirestoreValue`` from
///   any value, as it is.
/// - Arrays from `arrayValue`, structs and dictionaries from `mapValue` (an `arrayValue` or `mapValue` without
///   its `values`/`fields` member is empty: `CodableFieldCaseTests.c21...`), enums with raw values from their raw
///   value.
/// - Optionals: an absent field and `nullValue` are both `nil`. A non-optional property with no field is
///   `keyNotFound`; with `nullValue`, `valueNotFound`.
/// - ``DocumentID``: from the document's resource name, never from the data (a stored field of the same
///   name is ignored; the resource name wins). Without a document (a bare map decoded without `in:`) it is a
///   `DecodingError.valueNotFound`.
/// - ``ServerTimestamp`` and ``ExplicitNull``: an absent field or `nullValue` is `nil`
///   (`CodableFieldCaseTests.c14...`).
///
/// Every error is a `DecodingError` whose context carries the coding path, and whose `debugDescription`
/// starts with the document path and the field path: `fruits/u2: name: expected String, found integerValue`.
///
/// The decoder is a value: each call starts from its own settings and its own document, so a reused decoder
/// never carries one call's document (or anything else) into the next, and ``userInfo`` is never changed by a
/// call (`FirestoreDecoderReuseTests`).
public struct FirestoreDecoder: Sendable {
    /// How field names are matched to coding keys. Default ``KeyDecodingStrategy-swift.enum/useDefaultKeys``.
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    /// How a `Date` is read. Default ``DateDecodingStrategy-swift.enum/timestamp``.
    public var dateDecodingStrategy: DateDecodingStrategy = .timestamp
    /// How `Data` is read. Default ``DataDecodingStrategy-swift.enum/blob``.
    public var dataDecodingStrategy: DataDecodingStrategy = .blob
    /// Values handed to the decoded types through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with the SDK's defaults.
    public init() {}

    /// Decodes `type` from a document's fields.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - fields: the document data, as ``DocumentSnapshot/data()`` gives it.
    ///   - reference: the document the data belongs to: it fills ``DocumentID`` properties, names the document
    ///     in error messages, and provides the client for ``DocumentReference`` fields. `nil` for a bare map.
    /// - Throws: `DecodingError` naming the document and field path.
    /// - Complexity: O(n) in the size of the data.
    public func decode<T: Decodable>(
        _ type: T.Type, from fields: [String: FirestoreValue], in reference: DocumentReference? = nil
    ) throws -> T {
        try decode(type, from: .map(fields), in: reference)
    }

    /// Decodes `type` from any Firestore value (a map for a struct, an array for an array, a single value for
    /// a single-value type).
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - value: the value.
    ///   - reference: the document the value belongs to, as for decoding a document's fields; `nil` for a
    ///     bare value.
    /// - Throws: `DecodingError` naming the document and field path.
    /// - Complexity: O(n) in the size of the value.
    public func decode<T: Decodable>(_ type: T.Type, from value: FirestoreValue, in reference: DocumentReference? = nil)
        throws -> T
    {
        let document = reference.map {
            DocumentContext(path: $0.path, id: $0.documentID, reference: $0, firestore: $0.firestore)
        }
        return try FirestoreDecoderImpl.decodeTopLevel(type, from: value, context: makeContext(document))
    }

    /// Decodes `type` from a REST ``Document``, for instance one of
    /// ``QuerySnapshot/documents`` (its ``DocumentSnapshot/document``).
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - document: the REST document.
    ///   - firestore: the client the document was read from; it makes ``DocumentReference`` values and
    ///     `@DocumentID var ref: DocumentReference?`. Without it, `@DocumentID var id: String?` still works
    ///     (the ID is the last segment of the resource name) but references cannot be decoded.
    /// - Throws: `DecodingError` naming the document and field path.
    /// - Complexity: O(n) in the size of the document.
    public func decode<T: Decodable>(_ type: T.Type, from document: Document, firestore: Firestore? = nil) throws -> T {
        // The document's path and reference are worked out only if the type asks (`@DocumentID`, a reference, an
        // error message): most types never do, and resolving the name costs as much as decoding a small document.
        let context = DecodingContext(options: self, document: .unresolved(document, firestore))
        return try FirestoreDecoderImpl.decodeTopLevel(type, from: .map(document.fields), context: context)
    }

    func makeContext(_ document: DocumentContext?) -> DecodingContext {
        DecodingContext(options: self, document: document.map { .resolved($0) })
    }
}

/// The document a decoding call is about: for ``DocumentID``, for references, and for error messages.
struct DocumentContext {
    /// The path below the documents root, `fruits/u2`.
    var path: String
    /// The document ID, the last path segment.
    var id: String
    /// The document's reference, when a client is known.
    var reference: DocumentReference?
    /// The client ``DocumentReference`` values are made with.
    var firestore: Firestore?

    init(path: String, id: String, reference: DocumentReference?, firestore: Firestore?) {
        self.path = path
        self.id = id
        self.reference = reference
        self.firestore = firestore
    }

    init(document: Document, firestore: Firestore?) {
        if let firestore, let resolved = try? firestore.database.path(ofResourceName: document.name),
            resolved.isDocument
        {
            let reference = DocumentReference(
                firestore: firestore, path: .success(resolved), rawPath: resolved.description)
            self.init(path: resolved.description, id: resolved.lastSegment, reference: reference, firestore: firestore)
            return
        }
        // No client (or a name of another database): the path is what follows `/documents/` in the name.
        var path = document.name
        if let range = path.firstRange(of: "/documents/") { path = String(path[range.upperBound...]) }
        self.init(path: path, id: document.id, reference: nil, firestore: firestore)
    }
}

/// The settings of one decoding call, shared by every container of the call.
final class DecodingContext {
    let keyStrategy: FirestoreDecoder.KeyDecodingStrategy
    let dateStrategy: FirestoreDecoder.DateDecodingStrategy
    let dataStrategy: FirestoreDecoder.DataDecodingStrategy
    let userInfo: [CodingUserInfoKey: Any]
    let usesDefaultKeys: Bool

    /// The document of the call: resolved already, or to be resolved when first asked for.
    enum DocumentSource {
        case resolved(DocumentContext)
        case unresolved(Document, Firestore?)
    }

    private var documentSource: DocumentSource?

    /// The document the call decodes, if any (resolved on first use).
    var document: DocumentContext? {
        switch documentSource {
        case .resolved(let context)?: return context
        case .unresolved(let document, let firestore)?:
            let context = DocumentContext(document: document, firestore: firestore)
            documentSource = .resolved(context)
            return context
        case nil: return nil
        }
    }

    init(options: FirestoreDecoder, document: DocumentSource?) {
        self.keyStrategy = options.keyDecodingStrategy
        self.dateStrategy = options.dateDecodingStrategy
        self.dataStrategy = options.dataDecodingStrategy
        var info: [CodingUserInfoKey: Any] = [:]
        for (key, value) in options.userInfo { info[key] = value }
        self.userInfo = info
        self.documentSource = document
        if case .useDefaultKeys = options.keyDecodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
    }
}
