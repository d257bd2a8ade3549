import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreEncoder {
    /// How `Data` is written. The SDK's default is ``blob``.
    public enum DataEncodingStrategy: Sendable {
        /// A `bytesValue` (the default).
        case blob
        /// A `stringValue` holding the standard base64 form.
        case base64
        /// Whatever `Data.encode(to:)` writes: an array of byte `integerValue`s.
        case deferredToData
        /// The closure encodes the data into the encoder it is given.
        case custom(@Sendable (Data, any Encoder) throws -> Void)
    }
}

extension FirestoreDecoder {
    /// How `Data` is read. The SDK's default is ``blob``.
    public enum DataDecodingStrategy: Sendable {
        /// From a `bytesValue`, or from a base64 `stringValue` (what SDK versions 10.0 to 10.3 wrote; the SDK
        /// reads both since 10.4). The default.
        case blob
        /// From a base64 `stringValue` (a `bytesValue` is accepted as well).
        case base64
        /// Whatever `Data(from:)` reads: an array of byte integers.
        case deferredToData
        /// The closure decodes the data from the decoder it is given.
        case custom(@Sendable (any Decoder) throws -> Data)
    }
}
