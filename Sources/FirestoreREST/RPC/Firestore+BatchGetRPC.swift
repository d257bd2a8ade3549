import FirestoreWire

extension Firestore {
    /// BatchGetDocuments over gRPC (`rpc BatchGetDocuments(BatchGetDocumentsRequest) returns (stream
    /// BatchGetDocumentsResponse)`, `google/firestore/v1/firestore.proto`): the same request and result as the REST
    /// ``batchGet(names:mask:readTime:transaction:newTransaction:priority:)``.
    ///
    /// `BatchGetDocumentsRequest`: `database = 1`, `repeated string documents = 2`, `DocumentMask mask = 3`
    /// (`repeated string field_paths = 1`), the consistency selector (``RPCConsistency/batchGetDocuments``).
    /// `BatchGetDocumentsResponse`: `Document found = 1`, `string missing = 2`, `bytes transaction = 3`,
    /// `read_time = 4`.
    /// - Throws: ``FirestoreError`` as the REST method; `.dataLoss` for a message that does not decode.
    func batchGetRPC(
        names: [String], mask: [FieldPath]?, readTime: Timestamp?, transaction: String?,
        newTransaction: TransactionMode?, priority: HTTPRequest.Priority = .normal
    ) async throws -> BatchGetResponse {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.name)
        for name in names { writer.writeStringField(2, name) }
        if let mask {
            writer.writeMessageField(3) { documentMask in
                for path in mask { documentMask.writeStringField(1, path.description) }
            }
        }
        try RPCConsistency.batchGetDocuments.write(
            readTime: readTime, transaction: transaction, newTransaction: newTransaction, to: &writer)
        let (decoded, bytes) = try await performRPC(
            FirestoreGRPCMethod.batchGetDocuments, request: writer.bytes, idempotent: newTransaction == nil,
            priority: priority,
            initial: BatchGetResponse(found: [:], missing: [], readTime: nil)
        ) { (result, message) throws(FirestoreError) in
            try Self.addBatchGetMessage(message, to: &result)
        }
        var response = decoded
        response.responseBytes = bytes
        return response
    }

    /// Adds one `BatchGetDocumentsResponse` message to `result`.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    static func addBatchGetMessage(_ message: [UInt8], to result: inout BatchGetResponse) throws(FirestoreError) {
        try ProtobufReader.read(message, message: "BatchGetDocumentsResponse") { (reader) throws(FirestoreError) in
            while let field = try reader.nextField() {
                switch field.number {
                case 1:
                    let document = try reader.readMessage(field, "found") { (nested) throws(FirestoreError) in
                        try Document(reading: &nested)
                    }
                    result.found[ByteExactName(name: document.name)] = document
                case 2: result.missing.append(try reader.readString(field, "missing"))
                case 3:
                    let id = try reader.readByteArray(field, "transaction")
                    if !id.isEmpty { result.transaction = RPCTransactionID.text(id) }
                case 4:
                    let time = try reader.readMessage(field, "read_time") { (nested) throws(FirestoreError) in
                        try Timestamp(reading: &nested)
                    }
                    if result.readTime.map({ time > $0 }) ?? true { result.readTime = time }
                default: try reader.skip(field)
                }
            }
        }
    }
}
