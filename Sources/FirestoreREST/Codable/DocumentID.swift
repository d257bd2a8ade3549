import FirestoreWire

extension String: DocumentIDWrappable {
    /// The document ID, the last path segment.
    public static func wrap(_ reference: DocumentReference) throws -> String { reference.documentID }
}

extension DocumentReference: DocumentIDWrappable {
    /// The reference itself.
    public static func wrap(_ reference: DocumentReference) throws -> DocumentReference { reference }
}

/// A property filled with the ID (`String`) or reference (``DocumentReference``) of the document being decoded,
/// as the Firebase Apple SDK's `@DocumentID`:
///
/// ```swift
/// struct Fruit: Codable {
///     @DocumentID var id: String?
///     var name: String
/// }
/// let fruit = try snapshot.data(as: Fruit.self)   // fruit.id == snapshot.documentID
/// ```
///
/// - Decoding with ``FirestoreDecoder``: the value comes from the document's resource name, never from the
///   data. A stored field with the same name is ignored, without error (the resource name wins; the SDK's rule
///   since 10.0). Decoding without a document (a bare map decoded without `in:`) throws
///   `DecodingError.valueNotFound`. Every `@DocumentID` of the call, also in nested types, gets the document
///   being decoded; the next call on the same decoder starts without it.
/// - Encoding with ``FirestoreEncoder``: the property is skipped; it is never written. A value set in memory
///   stays in memory.
/// - With any other coder, encoding and decoding throw (the SDK's `encodingIsNotSupported`).
@propertyWrapper
public struct DocumentID<Value: DocumentIDWrappable & Codable>: Codable {
    /// The document's ID or reference; `nil` until decoded from a document.
    public var wrappedValue: Value?

    /// A property holding `value` in memory (it is never written).
    public init(wrappedValue value: Value?) {
        self.wrappedValue = value
    }

    /// Fills the value from the document being decoded (``FirestoreDecoder`` only).
    /// - Throws: `DecodingError.valueNotFound` without a document; `dataCorrupted` for another decoder.
    public init(from decoder: any Decoder) throws {
        guard let firestore = decoder as? FirestoreDecoderImpl else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "@DocumentID can only be decoded by FirestoreDecoder"))
        }
        self = try Self.decodeNative(from: nil, at: firestore.node, in: firestore)
    }

    /// Always throws: a document ID is never written, and ``FirestoreEncoder`` skips the property before this is
    /// called.
    /// - Throws: `EncodingError.invalidValue`.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self,
            EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription:
                    "@DocumentID is not encodable: FirestoreEncoder skips it, other encoders cannot write it"))
    }
}

extension DocumentID: Equatable where Value: Equatable {}
extension DocumentID: Hashable where Value: Hashable {}
extension DocumentID: Sendable where Value: Sendable {}

extension DocumentID: FirestoreNativeDecodable, FirestoreNativeEncodable {
    /// The document's ID or reference; the stored field (`value`) is ignored.
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> DocumentID<Value>
    {
        guard let document = decoder.context.document else {
            throw DecodingError.valueNotFound(
                Value.self,
                decoder.context(
                    at: node,
                    "@DocumentID needs the document: decode a DocumentSnapshot, or pass `in:` the document's reference")
            )
        }
        if Value.self == String.self, let id = document.id as? Value {
            return DocumentID(wrappedValue: id)
        }
        guard let reference = document.reference else {
            throw DecodingError.valueNotFound(
                Value.self,
                decoder.context(
                    at: node,
                    "@DocumentID of type \(Value.self) needs the document's reference, which needs a Firestore client"))
        }
        do {
            return DocumentID(wrappedValue: try Value.wrap(reference))
        } catch {
            throw decoder.wrapping(error, at: node)
        }
    }

    /// Nothing: the property is skipped.
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? { nil }
}
