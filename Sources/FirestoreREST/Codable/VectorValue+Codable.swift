import FirestoreWire

/// A ``VectorValue`` is a vector (the `__vector__` map) to ``FirestoreEncoder`` and ``FirestoreDecoder``, and an
/// `{"array": [Double]}` object to any other coder, as in the Firebase Apple SDK (`VectorValue+Codable.swift`).
/// A `[Double]` property stays an array: only a `VectorValue` property becomes a vector
/// (`VectorCodableTests`).
extension VectorValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case array
    }

    /// Decodes a vector (Firestore decoder) or an `{"array": [Double]}` object.
    /// - Throws: `DecodingError` for another shape; from the Firestore decoder, `typeMismatch` naming the field
    ///   and what it holds instead of a vector.
    public init(from decoder: any Decoder) throws {
        if let firestore = decoder as? FirestoreDecoderImpl {
            self = try Self.decodeNative(from: firestore.value, at: firestore.node, in: firestore)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode([Double].self, forKey: .array))
    }

    /// Encodes a vector (Firestore encoder) or an `{"array": [Double]}` object.
    public func encode(to encoder: any Encoder) throws {
        if encoder is FirestoreEncoderImpl {
            var container = encoder.singleValueContainer()
            try container.encode(firestoreValue)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(array, forKey: .array)
    }
}

extension VectorValue: FirestoreNativeDecodable, FirestoreNativeEncodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> VectorValue
    {
        let value = try decoder.required(value, at: node)
        if case .map(let fields) = value, fields["__type__"] == nil, fields["array"] != nil {
            // The `{"array": [...]}` form another coder wrote.
            return try decoder.moved(to: value, at: node) {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                return VectorValue(try container.decode([Double].self, forKey: .array))
            }
        }
        do {
            return try VectorValue(value)
        } catch {
            guard value.isVectorShaped else {
                throw decoder.mismatch(VectorValue.self, value, at: node, expected: "a vector")
            }
            throw DecodingError.dataCorrupted(decoder.context(at: node, error.message))
        }
    }

    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(firestoreValue))
    }
}

extension FirestoreValue {
    /// Whether this is a map whose `__type__` is `"__vector__"`, well-formed or not.
    var isVectorShaped: Bool {
        guard case .map(let fields) = self else { return false }
        return fields["__type__"] == .string("__vector__")
    }
}
