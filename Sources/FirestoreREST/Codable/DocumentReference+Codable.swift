import FirestoreWire

/// A ``DocumentReference`` is a `referenceValue` (the full resource name) to ``FirestoreEncoder`` and
/// ``FirestoreDecoder``; any other coder cannot hold one and throws, as in the SDK
/// (the Firebase Apple SDK's `DocumentReference+Codable.swift`; `CodableSupportTypesTests`).
///
/// Decoding needs the client the reference is made with: decode a ``DocumentSnapshot``
/// (``DocumentSnapshot/data(as:decoder:)``) or pass `in:` / `firestore:` to ``FirestoreDecoder``. A reference to
/// a document of another database cannot be represented and is an error.
extension DocumentReference: Codable {
    /// Decodes a `referenceValue` (Firestore decoder only).
    /// - Throws: `DecodingError` for another coder, another value type, a missing client, or a resource name
    ///   of another database.
    public init(from decoder: any Decoder) throws {
        guard let firestore = decoder as? FirestoreDecoderImpl else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "DocumentReference can only be decoded by FirestoreDecoder"))
        }
        self = try Self.decodeNative(from: firestore.value, at: firestore.node, in: firestore)
    }

    /// Encodes a `referenceValue` (Firestore encoder only).
    /// - Throws: `EncodingError.invalidValue` for another coder.
    public func encode(to encoder: any Encoder) throws {
        guard let firestore = encoder as? FirestoreEncoderImpl else {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "DocumentReference can only be encoded by FirestoreEncoder"))
        }
        var container = firestore.singleValueContainer()
        try container.encode(FirestoreValue.reference(try referenceName(at: firestore.node, in: firestore)))
    }

    /// The resource name, or `invalidValue` when the reference was made from an invalid path.
    private func referenceName(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> String {
        do {
            return firestore.database.resourceName(of: try resourcePath())
        } catch {
            throw EncodingError.invalidValue(self, encoder.context(at: node, error.message))
        }
    }
}

extension DocumentReference: FirestoreNativeDecodable, FirestoreNativeEncodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> DocumentReference
    {
        let value = try decoder.required(value, at: node)
        guard case .reference(let name) = value else { throw decoder.mismatch(DocumentReference.self, value, at: node) }
        guard let firestore = decoder.context.document?.firestore else {
            throw DecodingError.dataCorrupted(
                decoder.context(
                    at: node,
                    "cannot make a DocumentReference for \(name) without a Firestore client; decode a DocumentSnapshot, "
                        + "or pass `in:` a reference or `firestore:` to FirestoreDecoder"))
        }
        let path: ResourcePath
        do {
            path = try firestore.database.path(ofResourceName: name)
        } catch {
            throw DecodingError.dataCorrupted(decoder.context(at: node, error.message))
        }
        guard path.isDocument else {
            throw DecodingError.dataCorrupted(decoder.context(at: node, "\(name) does not name a document"))
        }
        return DocumentReference(firestore: firestore, path: .success(path), rawPath: path.description)
    }

    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(.reference(try referenceName(at: node, in: encoder))))
    }
}
