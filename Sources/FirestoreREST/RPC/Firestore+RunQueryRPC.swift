import FirestoreWire

extension Firestore {
    /// RunQuery over gRPC (`rpc RunQuery(RunQueryRequest) returns (stream RunQueryResponse)`,
    /// `google/firestore/v1/firestore.proto`): the same request and result as the REST
    /// ``runQuery(parent:structuredQuery:readTime:transaction:newTransaction:priority:)``, each streamed message
    /// decoded as it arrives.
    ///
    /// `RunQueryRequest`: `parent = 1`, `structured_query = 2` (``StructuredQuery/write(to:)``), the consistency
    /// selector (``RPCConsistency/runQuery``). `RunQueryResponse`: `document = 1`, `bytes transaction = 2`,
    /// `read_time = 3`, `int32 skipped_results = 4`, `bool done = 6`.
    /// - Throws: ``FirestoreError`` as the REST method; `.dataLoss` for a message that does not decode.
    func runQueryRPC(
        parent: ResourcePath, structuredQuery: StructuredQuery, readTime: Timestamp?, transaction: String?,
        newTransaction: TransactionMode?, priority: HTTPRequest.Priority = .normal
    ) async throws -> RunQueryResponse {
        let request = try runQueryRequest(
            parent: parent, structuredQuery: structuredQuery, readTime: readTime, transaction: transaction,
            newTransaction: newTransaction)
        let (decoded, bytes) = try await performRPC(
            FirestoreGRPCMethod.runQuery, request: request, idempotent: newTransaction == nil, priority: priority,
            initial: RunQueryResponse(documents: [], readTime: nil, skippedResults: 0)
        ) { (result, message) throws(FirestoreError) in
            try Self.addRunQueryMessage(message, to: &result)
        }
        var response = try Self.finishRunQuery(decoded)
        response.responseBytes = bytes
        return response
    }

    /// The `RunQueryRequest` message ``runQueryRPC(parent:structuredQuery:readTime:transaction:newTransaction:priority:)``
    /// sends, as protobuf bytes (what `query --dry-run --protocol grpc` prints).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a structured query the protobuf codec cannot carry.
    package func runQueryRequest(
        parent: ResourcePath, structuredQuery: StructuredQuery, readTime: Timestamp? = nil, transaction: String? = nil,
        newTransaction: TransactionMode? = nil
    ) throws(FirestoreError) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.resourceName(of: parent))
        try writer.writeMessageField(2) { (query) throws(FirestoreError) in
            try structuredQuery.write(to: &query)
        }
        try RPCConsistency.runQuery.write(
            readTime: readTime, transaction: transaction, newTransaction: newTransaction, to: &writer)
        return writer.bytes
    }

    /// Decodes the messages of a whole `RunQuery` stream as ``runQueryRPC(parent:structuredQuery:readTime:transaction:newTransaction:priority:)``
    /// does, one by one; `responseBytes` is their total size.
    /// - Throws: ``FirestoreError`` as ``addRunQueryMessage(_:to:)``; `.internal` when no message carries a read
    ///   time.
    /// - Complexity: O(n) in the bytes.
    package static func decodeRunQuery(messages: [[UInt8]]) throws(FirestoreError) -> RunQueryResponse {
        var result = RunQueryResponse(documents: [], readTime: nil, skippedResults: 0)
        for message in messages {
            try addRunQueryMessage(message, to: &result)
            result.responseBytes += message.count
        }
        return try finishRunQuery(result)
    }

    /// Adds one `RunQueryResponse` message: its document, the newest read time, skipped results and the
    /// transaction a `new_transaction` read began.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data; `.internal` when the skipped results
    ///   overflow.
    static func addRunQueryMessage(_ message: [UInt8], to result: inout RunQueryResponse) throws(FirestoreError) {
        try ProtobufReader.read(message, message: "RunQueryResponse") { (reader) throws(FirestoreError) in
            while let field = try reader.nextField() {
                switch field.number {
                case 1:
                    let document = try reader.readMessage(field, "document") { (nested) throws(FirestoreError) in
                        try Document(reading: &nested)
                    }
                    result.documents.append(document)
                case 2:
                    let id = try reader.readByteArray(field, "transaction")
                    if !id.isEmpty { result.transaction = RPCTransactionID.text(id) }
                case 3:
                    let time = try reader.readMessage(field, "read_time") { (nested) throws(FirestoreError) in
                        try Timestamp(reading: &nested)
                    }
                    if result.readTime.map({ time > $0 }) ?? true { result.readTime = time }
                case 4:
                    let skipped = try reader.readInt32(field, "skipped_results")
                    let (total, overflow) = result.skippedResults.addingReportingOverflow(Int(max(0, skipped)))
                    guard !overflow else {
                        throw FirestoreError(code: .internal, message: "RunQueryResponse: skipped_results overflow")
                    }
                    result.skippedResults = total
                default: try reader.skip(field)
                }
            }
        }
    }
}
