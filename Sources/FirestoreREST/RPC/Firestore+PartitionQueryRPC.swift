import FirestoreWire

extension Firestore {
    /// One page of PartitionQuery over gRPC (`rpc PartitionQuery(PartitionQueryRequest) returns
    /// (PartitionQueryResponse)`, `google/firestore/v1/firestore.proto`): the same request and page as the REST POST
    /// `{parent}:partitionQuery`.
    ///
    /// `PartitionQueryRequest`: `string parent = 1`, `StructuredQuery structured_query = 2`
    /// (``StructuredQuery/write(to:)``), `int64 partition_count = 3`, `string page_token = 4`.
    /// - Throws: ``FirestoreError`` as the REST call (the Firestore emulator answers `.unimplemented`); `.dataLoss`
    ///   for a response that does not decode or a split point that is not one document reference.
    func partitionQueryRPC(
        parent: ResourcePath, structuredQuery: StructuredQuery, partitionCount: Int, pageToken: String?, what: String
    ) async throws -> (elements: [FirestoreValue], nextPageToken: String?) {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.resourceName(of: parent))
        try writer.writeMessageField(2) { (query) throws(FirestoreError) in
            try structuredQuery.write(to: &query)
        }
        writer.writeInt64Field(3, Int64(partitionCount))
        if let pageToken { writer.writeStringField(4, pageToken) }
        let (page, _) = try await performRPC(
            FirestoreGRPCMethod.partitionQuery, request: writer.bytes, idempotent: true,
            initial: (elements: [FirestoreValue](), nextPageToken: String?.none)
        ) { (page, message) throws(FirestoreError) in
            page = try Self.decodePartitionQueryResponse(message)
        }
        return page
    }

    /// Decodes a `PartitionQueryResponse` message: `repeated Cursor partitions = 1` (`Cursor`: `repeated Value
    /// values = 1`, `bool before = 2`), `string next_page_token = 2` (empty on the last page, given as `nil`).
    /// Each cursor must hold exactly one value, a document reference (`__name__` is the only order).
    /// - Returns: each cursor's reference value, in order, and the next page token.
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the field and byte offset for malformed wire data, or the
    ///   partition that is not one reference.
    /// - Complexity: O(n) in the bytes.
    static func decodePartitionQueryResponse(_ message: [UInt8]) throws(FirestoreError)
        -> (elements: [FirestoreValue], nextPageToken: String?)
    {
        var index = 0
        return try RPCPageResponse.decode(message, name: "PartitionQueryResponse") {
            (reader, field) throws(FirestoreError) -> FirestoreValue in
            let start = reader.position
            let values = try reader.readMessage(field, "partitions") { (cursor) throws(FirestoreError) in
                var values: [FirestoreValue] = []
                while let member = try cursor.nextField() {
                    if member.number == 1 {
                        values.append(
                            try cursor.readMessage(member, "values") { (value) throws(FirestoreError) in
                                try FirestoreValue(reading: &value)
                            })
                    } else {
                        try cursor.skip(member)
                    }
                }
                return values
            }
            guard values.count == 1, case .reference = values[0] else {
                throw reader.failure("partition \(index) is not one document reference", at: start, field: "partitions")
            }
            index += 1
            return values[0]
        }
    }
}
