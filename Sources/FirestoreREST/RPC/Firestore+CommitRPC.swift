import FirestoreWire

extension Firestore {
    /// Commit over gRPC (`rpc Commit(CommitRequest) returns (CommitResponse)`, `google/firestore/v1/firestore.proto`):
    /// the same request and result as the REST ``commit(_:transaction:)`` (whose caller has already stamped the
    /// server-time field). Never retried unless nothing reached the server.
    ///
    /// `CommitRequest`: `database = 1`, `repeated Write writes = 2` (``Write/writeProtobuf(database:to:)``),
    /// `bytes transaction = 3`. `CommitResponse`: `repeated WriteResult write_results = 1` (`update_time = 1`,
    /// `repeated Value transform_results = 2`), `commit_time = 2`.
    /// - Throws: ``FirestoreError`` as the REST method; `.internal` when the response does not hold one result per
    ///   write (the commit was applied).
    func commitRPC(_ writes: [Write], transaction: String?) async throws -> CommitResponse {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.name)
        for write in writes {
            writer.writeMessageField(2) { write.writeProtobuf(database: database, to: &$0) }
        }
        if let transaction { writer.writeBytesField(3, try RPCTransactionID.bytes(transaction)) }
        let (message, _) = try await performRPC(
            FirestoreGRPCMethod.commit, request: writer.bytes, idempotent: false,
            priority: transaction == nil ? .normal : .high, initial: [UInt8]?.none
        ) { (single, message) throws(FirestoreError) in
            single = message
        }
        return try Self.decodeCommitResponse(message ?? [], writeCount: writes.count)
    }

    /// Decodes a `CommitResponse` message into the REST decoder's result, with its rules: one result per write, a
    /// result without `update_time` (a delete or a write that changed nothing) was written at the commit time.
    /// - Throws: ``FirestoreError`` `.internal` naming what is wrong (the commit was applied).
    static func decodeCommitResponse(_ message: [UInt8], writeCount: Int) throws(FirestoreError) -> CommitResponse {
        func malformed(_ what: String) -> FirestoreError {
            FirestoreError(code: .internal, message: "commit response (the commit was applied): \(what)")
        }
        var commitTime: Timestamp?
        var elements: [(updateTime: Timestamp?, transforms: [FirestoreValue])] = []
        do {
            try ProtobufReader.read(message, message: "CommitResponse") { (reader) throws(FirestoreError) in
                while let field = try reader.nextField() {
                    switch field.number {
                    case 1:
                        elements.append(
                            try reader.readMessage(field, "write_results") { (result) throws(FirestoreError) in
                                try BatchWriteResponse.readWriteResult(&result)
                            })
                    case 2:
                        commitTime = try reader.readMessage(field, "commit_time") { (time) throws(FirestoreError) in
                            try Timestamp(reading: &time)
                        }
                    default: try reader.skip(field)
                    }
                }
            }
        } catch {
            throw malformed(error.message)
        }
        guard elements.count == writeCount else {
            throw malformed("\(elements.count) write results for \(writeCount) writes")
        }
        var results: [WriteResult] = []
        for (index, element) in elements.enumerated() {
            guard let writeTime = element.updateTime ?? commitTime else {
                throw malformed("write_results[\(index)] has no update_time and the response no commit_time")
            }
            results.append(
                WriteResult(updateTime: element.updateTime, writeTime: writeTime, transformResults: element.transforms))
        }
        return CommitResponse(writeResults: results, commitTime: commitTime)
    }

    /// BeginTransaction over gRPC (`BeginTransactionRequest`: `database = 1`, `TransactionOptions options = 2`;
    /// `BeginTransactionResponse`: `bytes transaction = 1`): the same as the REST ``beginTransaction(_:)``.
    /// - Returns: the transaction ID in its REST form (base64).
    /// - Throws: ``FirestoreError`` as the REST method.
    func beginTransactionRPC(_ mode: TransactionMode) async throws -> String {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.name)
        try writer.writeMessageField(2) { (options) throws(FirestoreError) in try mode.writeProtobuf(to: &options) }
        let (id, _) = try await performRPC(
            FirestoreGRPCMethod.beginTransaction, request: writer.bytes, idempotent: false, initial: [UInt8]()
        ) { (id, message) throws(FirestoreError) in
            try ProtobufReader.read(message, message: "BeginTransactionResponse") { (reader) throws(FirestoreError) in
                while let field = try reader.nextField() {
                    if field.number == 1 {
                        id = try reader.readByteArray(field, "transaction")
                    } else {
                        try reader.skip(field)
                    }
                }
            }
        }
        guard !id.isEmpty else {
            throw FirestoreError(code: .internal, message: "beginTransaction response has no transaction ID")
        }
        return RPCTransactionID.text(id)
    }

    /// Rollback over gRPC (`RollbackRequest`: `database = 1`, `bytes transaction = 2`; the response is
    /// `google.protobuf.Empty`): the same as the REST ``rollback(transaction:)``.
    /// - Throws: ``FirestoreError`` as the REST method.
    func rollbackRPC(transaction: String) async throws {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.name)
        writer.writeBytesField(2, try RPCTransactionID.bytes(transaction))
        _ = try await performRPC(
            FirestoreGRPCMethod.rollback, request: writer.bytes, idempotent: false, priority: .high, initial: ()
        ) { (_, _) throws(FirestoreError) in }
    }
}
