import FirestoreWire

extension Firestore {
    /// RunAggregationQuery over gRPC (`rpc RunAggregationQuery(RunAggregationQueryRequest) returns (stream
    /// RunAggregationQueryResponse)`, `google/firestore/v1/firestore.proto`): the same request and result as the
    /// REST `runAggregationQuery`.
    ///
    /// `RunAggregationQueryRequest`: `parent = 1`, `structured_aggregation_query = 2`
    /// (``StructuredAggregationQuery/write(to:)``), the consistency selector (``RPCConsistency/runAggregationQuery``).
    /// `RunAggregationQueryResponse`: `AggregationResult result = 1` (`map<string, Value> aggregate_fields = 2`),
    /// `bytes transaction = 2`, `read_time = 3` (and `explain_metrics = 10`, read by
    /// ``runExplainedAggregationQueryRPC(parent:structuredAggregationQuery:options:)``).
    /// - Parameters:
    ///   - parent: the documents root or a document path.
    ///   - structuredAggregationQuery: the aggregation, as the wire model holds it.
    ///   - readTime, transaction, newTransaction: at most one consistency selector.
    /// - Returns: the aggregate values by alias, and the response's bytes.
    /// - Throws: ``FirestoreError`` as the REST call; `.dataLoss` for a message that does not decode; `.internal`
    ///   for an aggregate value that is not a number or null.
    func runAggregationQueryRPC(
        parent: ResourcePath, structuredAggregationQuery: StructuredAggregationQuery, readTime: Timestamp?,
        transaction: String?,
        newTransaction: TransactionMode?
    ) async throws -> (response: RunAggregationQueryResponse, bytes: Int) {
        var writer = try runAggregationQueryRequest(
            parent: parent, structuredAggregationQuery: structuredAggregationQuery)
        try RPCConsistency.runAggregationQuery.write(
            readTime: readTime, transaction: transaction, newTransaction: newTransaction, to: &writer)
        let (decoded, bytes) = try await performRPC(
            FirestoreGRPCMethod.runAggregationQuery, request: writer.bytes, idempotent: newTransaction == nil,
            initial: RunAggregationQueryResponse(aggregateFields: [:], readTime: nil)
        ) { (result, message) throws(FirestoreError) in
            result = try Self.addRunAggregationQueryMessage(message, to: result)
        }
        return (decoded, bytes)
    }

    /// RunAggregationQuery with `explain_options` over gRPC: the request of
    /// ``runAggregationQueryRPC(parent:structuredAggregationQuery:readTime:transaction:newTransaction:)`` without a
    /// consistency selector and with `ExplainOptions explain_options = 8` (``ExplainOptions/write(field:to:)``), its
    /// results decoded as there, plus `ExplainMetrics explain_metrics = 10` of the message that carries them
    /// (``ExplainMetrics/read(field:of:message:)``). A plan-only answer (metrics, no `result`) need not carry a
    /// read time, as over REST (``decodeExplainedRunAggregationQuery(_:)``).
    /// - Throws: ``FirestoreError`` as the REST call; `.dataLoss` for a message that does not decode; `.internal`
    ///   for an aggregate value that is not a number or null.
    func runExplainedAggregationQueryRPC(
        parent: ResourcePath, structuredAggregationQuery: StructuredAggregationQuery, options: ExplainOptions
    ) async throws -> (RunAggregationQueryResponse, ExplainMetrics?) {
        var writer = try runAggregationQueryRequest(
            parent: parent, structuredAggregationQuery: structuredAggregationQuery)
        options.write(field: 8, to: &writer)
        let (decoded, _) = try await performRPC(
            FirestoreGRPCMethod.runAggregationQuery, request: writer.bytes, idempotent: true,
            initial: (RunAggregationQueryResponse(aggregateFields: [:], readTime: nil), ExplainMetrics?.none)
        ) { (result, message) throws(FirestoreError) in
            result.0 = try Self.addRunAggregationQueryMessage(message, to: result.0)
            if let found = try ExplainMetrics.read(field: 10, of: message, message: "RunAggregationQueryResponse") {
                result.1 = found
            }
        }
        return decoded
    }

    /// The `RunAggregationQueryRequest` fields every call starts with: `parent = 1` and
    /// `structured_aggregation_query = 2` (``StructuredAggregationQuery/write(to:)``).
    /// - Throws: ``FirestoreError`` as ``StructuredAggregationQuery/write(to:)``.
    private func runAggregationQueryRequest(
        parent: ResourcePath, structuredAggregationQuery: StructuredAggregationQuery
    )
        throws(FirestoreError) -> ProtobufWriter
    {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.resourceName(of: parent))
        try writer.writeMessageField(2) { (query) throws(FirestoreError) in
            try structuredAggregationQuery.write(to: &query)
        }
        return writer
    }

    /// `result` with one `RunAggregationQueryResponse` message added.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data; `.internal` for an aggregate value that is
    ///   not an integer, a double or null.
    static func addRunAggregationQueryMessage(_ message: [UInt8], to result: RunAggregationQueryResponse)
        throws(FirestoreError) -> RunAggregationQueryResponse
    {
        var fields = result.aggregateFields
        var readTime = result.readTime
        var transaction = result.transaction
        try ProtobufReader.read(message, message: "RunAggregationQueryResponse") { (reader) throws(FirestoreError) in
            while let field = try reader.nextField() {
                switch field.number {
                case 1:
                    var values: [String: FirestoreValue] = [:]
                    try reader.readMessage(field, "result") { (nested) throws(FirestoreError) in
                        while let member = try nested.nextField() {
                            if member.number == 2 {
                                try FirestoreValue.readMapEntry(
                                    member, "aggregate_fields", from: &nested, into: &values)
                            } else {
                                try nested.skip(member)
                            }
                        }
                    }
                    for (alias, value) in values {
                        switch value {
                        case .integer(let number): fields[alias] = .integer(number)
                        case .double(let number): fields[alias] = .double(number)
                        case .null: fields[alias] = .null
                        default:
                            throw FirestoreError(code: .internal, message: "aggregate \(alias) is a \(value.typeName)")
                        }
                    }
                case 2:
                    let id = try reader.readByteArray(field, "transaction")
                    if !id.isEmpty { transaction = RPCTransactionID.text(id) }
                case 3:
                    let time = try reader.readMessage(field, "read_time") { (nested) throws(FirestoreError) in
                        try Timestamp(reading: &nested)
                    }
                    if readTime.map({ time > $0 }) ?? true { readTime = time }
                default: try reader.skip(field)
                }
            }
        }
        return RunAggregationQueryResponse(aggregateFields: fields, readTime: readTime, transaction: transaction)
    }
}
