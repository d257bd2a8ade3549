import FirestoreWire

extension KeyedDecodingContainer {
    /// Decodes a ``ServerTimestamp`` property whose field may be absent: absent or `nullValue` is `nil`, with
    /// any decoder (`CodableFieldCaseTests.c14AbsentOrNullServerTimestampIsNil`). Synthesized `Decodable` conformances
    /// pick this overload.
    /// - Throws: as ``ServerTimestamp/init(from:)`` for a present value.
    public func decode<Value>(_ type: ServerTimestamp<Value>.Type, forKey key: Key) throws -> ServerTimestamp<Value> {
        try decodeIfPresent(type, forKey: key) ?? ServerTimestamp(wrappedValue: nil)
    }

    /// Decodes an ``ExplicitNull`` property whose field may be absent: absent or `nullValue` is `nil`, with any
    /// decoder, as for a plain optional (`CodableFieldCaseTests.c15...`). Synthesized `Decodable` conformances pick
    /// this overload.
    /// - Throws: the value's `DecodingError` for a present value.
    public func decode<Value: Decodable>(_ type: ExplicitNull<Value>.Type, forKey key: Key) throws
        -> ExplicitNull<Value>
    {
        try decodeIfPresent(type, forKey: key) ?? ExplicitNull(wrappedValue: nil)
    }
}
