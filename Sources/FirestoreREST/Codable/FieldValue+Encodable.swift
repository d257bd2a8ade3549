import FirestoreWire

/// A ``FieldValue`` property writes its value or sentinel with ``FirestoreEncoder``:
/// `var views = FieldValue.increment(Int64(1))` becomes the `increment` transform when the model is written
/// with ``DocumentReference/setData(from:merge:encoder:)``. Any other encoder throws, as the SDK's
/// `FieldValue+Encodable` does (the Firebase Apple SDK's `FieldValue+Encodable`; `FirestoreEncoderTests`).
extension FieldValue: Encodable {
    /// Writes the value or sentinel (Firestore encoder only).
    /// - Throws: `EncodingError.invalidValue` for another encoder.
    public func encode(to encoder: any Encoder) throws {
        guard let firestore = encoder as? FirestoreEncoderImpl else {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath, debugDescription: "\(self) can only be encoded by FirestoreEncoder")
            )
        }
        firestore.box.content = .value(self)
    }
}
