import FirestoreWire

/// A ``GeoPoint`` is a `geoPointValue` to ``FirestoreEncoder`` and ``FirestoreDecoder``, and a
/// `{"latitude": Double, "longitude": Double}` object to any other coder, as in the SDK
/// (the Firebase Apple SDK's `GeoPoint+Codable.swift`; `CodableSupportTypesTests`).
extension GeoPoint: Codable {
    private enum CodingKeys: String, CodingKey {
        case latitude, longitude
    }

    /// Decodes a `geoPointValue` (Firestore decoder) or a `{latitude, longitude}` object.
    /// - Throws: `DecodingError` for another shape.
    public init(from decoder: any Decoder) throws {
        if let firestore = decoder as? FirestoreDecoderImpl {
            switch firestore.value {
            case .geoPoint(let point):
                self = point
                return
            case .map: break
            default: throw firestore.mismatch(GeoPoint.self, firestore.value, at: firestore.node)
            }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            latitude: try container.decode(Double.self, forKey: .latitude),
            longitude: try container.decode(Double.self, forKey: .longitude))
    }

    /// Encodes a `geoPointValue` (Firestore encoder) or a `{latitude, longitude}` object.
    public func encode(to encoder: any Encoder) throws {
        if encoder is FirestoreEncoderImpl {
            var container = encoder.singleValueContainer()
            try container.encode(FirestoreValue.geoPoint(self))
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
    }
}

extension GeoPoint: FirestoreNativeDecodable, FirestoreNativeEncodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> GeoPoint
    {
        switch try decoder.required(value, at: node) {
        case .geoPoint(let point): return point
        case .map(let fields): return try decoder.decodeNested(GeoPoint.self, from: .map(fields), at: node)
        case let other: throw decoder.mismatch(GeoPoint.self, other, at: node)
        }
    }

    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(.geoPoint(self)))
    }
}
