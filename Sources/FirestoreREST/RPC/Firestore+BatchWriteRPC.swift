import FirestoreWire

extension Firestore {
    /// BatchWrite over gRPC (`rpc BatchWrite(BatchWriteRequest) returns (BatchWriteResponse)`,
    /// `google/firestore/v1/firestore.proto`): the same request and result as the REST ``batchWrite(_:)`` (whose
    /// caller has already stamped the server-time field). Never retried unless nothing reached the server.
    ///
    /// `BatchWriteRequest`: `string database = 1`, `repeated Write writes = 2` (``Write/writeProtobuf(database:to:)``).
    /// - Throws: ``FirestoreError`` as the REST method; `.internal` for a malformed response (writes may have been
    ///   applied).
    func batchWriteRPC(_ writes: [Write]) async throws -> BatchWriteResponse {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.name)
        for write in writes {
            writer.writeMessageField(2) { write.writeProtobuf(database: database, to: &$0) }
        }
        let (message, _) = try await performRPC(
            FirestoreGRPCMethod.batchWrite, request: writer.bytes, idempotent: false, initial: [UInt8]?.none
        ) { (single, message) throws(FirestoreError) in
            single = message
        }
        return try BatchWriteResponse(protobuf: message ?? [], writeCount: writes.count)
    }
}
