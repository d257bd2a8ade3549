import FirestoreWire

/// A ``FirestoreValue`` property holds whatever the field holds, unchanged, with ``FirestoreEncoder`` and
/// ``FirestoreDecoder`` (for a field whose type varies). Other coders throw: a ``FirestoreValue`` has no
/// faithful plain form (integers and doubles, bytes and strings would merge).
extension FirestoreValue: Codable {
    /// Takes the value as it is (Firestore decoder only).
    /// - Throws: `DecodingError.dataCorrupted` for another coder.
    public init(from decoder: any Decoder) throws {
        guard let firestore = decoder as? FirestoreDecoderImpl else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "FirestoreValue can only be decoded by FirestoreDecoder"))
        }
        self = firestore.value
    }

    /// Writes the value as it is (Firestore encoder only).
    /// - Throws: `EncodingError.invalidValue` for another coder.
    public func encode(to encoder: any Encoder) throws {
        guard let firestore = encoder as? FirestoreEncoderImpl else {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "FirestoreValue can only be encoded by FirestoreEncoder"))
        }
        firestore.box.content = .value(.value(self))
    }
}
