import FirestoreWire

extension Timestamp {
    /// Decodes a `google.protobuf.Timestamp` message (`google/protobuf/timestamp.proto`: `int64 seconds = 1`,
    /// `int32 nanos = 2`; absent fields are 0) from the current message of `reader`. Unknown fields are
    /// skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data, nanos outside 0 ... 999,999,999 or an
    ///   instant outside 0001-01-01 ... 9999-12-31 (the range `timestamp.proto` defines).
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        let start = reader.position
        let (seconds, nanos) = try reader.readSecondsAndNanos()
        do {
            self = try Timestamp(seconds: seconds, nanos: nanos)
        } catch {
            throw reader.failure(error.message, at: start)
        }
    }

    /// Writes this instant's `google.protobuf.Timestamp` fields (`seconds = 1`, `nanos = 2`), leaving out the
    /// ones that are 0 as proto3 does.
    package func writeProtobuf(to writer: inout ProtobufWriter) {
        if seconds != 0 { writer.writeInt64Field(1, seconds) }
        if nanos != 0 { writer.writeInt32Field(2, nanos) }
    }
}
