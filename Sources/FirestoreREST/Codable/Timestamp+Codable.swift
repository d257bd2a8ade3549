import FirestoreWire

/// A ``Timestamp`` is a `timestampValue` to ``FirestoreEncoder`` and ``FirestoreDecoder`` (nanoseconds exact),
/// and a `{"seconds": Int64, "nanoseconds": Int32}` object to any other coder, as in the SDK
/// (the Firebase Apple SDK's `Timestamp+Codable.swift`; `CodableSupportTypesTests`).
extension Timestamp: Codable {
    private enum CodingKeys: String, CodingKey {
        case seconds, nanoseconds
    }

    /// Decodes a `timestampValue` (Firestore decoder) or a `{seconds, nanoseconds}` object.
    /// - Throws: `DecodingError` for another shape, or `dataCorrupted` when the nanoseconds are outside
    ///   0 ... 999,999,999 or the instant outside 0001 ... 9999.
    public init(from decoder: any Decoder) throws {
        if let firestore = decoder as? FirestoreDecoderImpl {
            switch firestore.value {
            case .timestamp(let time):
                self = time
                return
            case .map: break
            default: throw firestore.mismatch(Timestamp.self, firestore.value, at: firestore.node)
            }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let seconds = try container.decode(Int64.self, forKey: .seconds)
        let nanos = try container.decode(Int32.self, forKey: .nanoseconds)
        do {
            try self.init(seconds: seconds, nanos: nanos)
        } catch {
            let text = error.message
            if let firestore = decoder as? FirestoreDecoderImpl {
                throw DecodingError.dataCorrupted(firestore.context(at: firestore.node, text))
            }
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: text))
        }
    }

    /// Encodes a `timestampValue` (Firestore encoder) or a `{seconds, nanoseconds}` object.
    public func encode(to encoder: any Encoder) throws {
        if encoder is FirestoreEncoderImpl {
            var container = encoder.singleValueContainer()
            try container.encode(FirestoreValue.timestamp(self))
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(nanos, forKey: .nanoseconds)
    }
}

extension Timestamp: FirestoreNativeDecodable, FirestoreNativeEncodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> Timestamp
    {
        switch try decoder.required(value, at: node) {
        case .timestamp(let time): return time
        case .map(let fields): return try decoder.decodeNested(Timestamp.self, from: .map(fields), at: node)
        case let other: throw decoder.mismatch(Timestamp.self, other, at: node)
        }
    }

    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(.timestamp(self)))
    }
}
