import FirestoreWire

extension Firestore {
    /// One page of ListCollectionIds over gRPC (`rpc ListCollectionIds(ListCollectionIdsRequest) returns
    /// (ListCollectionIdsResponse)`, `google/firestore/v1/firestore.proto`): the same request and page as the REST
    /// POST `{parent}:listCollectionIds`.
    ///
    /// `ListCollectionIdsRequest`: `string parent = 1` (the documents root or a document), `int32 page_size = 2`,
    /// `string page_token = 3`, `google.protobuf.Timestamp read_time = 4`.
    /// - Throws: ``FirestoreError`` as the REST call; `.dataLoss` for a response that does not decode.
    func listCollectionIdsRPC(parent: ResourcePath, pageToken: String?, pageSize: Int, readTime: Timestamp?)
        async throws -> ListCollectionIdsResponse
    {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.resourceName(of: parent))
        writer.writeInt32Field(2, Int32(clamping: pageSize))
        if let pageToken { writer.writeStringField(3, pageToken) }
        if let readTime { writer.writeMessageField(4) { readTime.writeProtobuf(to: &$0) } }
        let (page, _) = try await performRPC(
            FirestoreGRPCMethod.listCollectionIds, request: writer.bytes, idempotent: true,
            initial: ListCollectionIdsResponse(collectionIds: [], nextPageToken: nil)
        ) { (page, message) throws(FirestoreError) in
            page = try Self.decodeListCollectionIdsResponse(message)
        }
        return page
    }

    /// Decodes a `ListCollectionIdsResponse` message: `repeated string collection_ids = 1`,
    /// `string next_page_token = 2` (empty on the last page, given as `nil`).
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the field and byte offset for malformed wire data.
    /// - Complexity: O(n) in the bytes.
    static func decodeListCollectionIdsResponse(_ message: [UInt8]) throws(FirestoreError)
        -> ListCollectionIdsResponse
    {
        let page = try RPCPageResponse.decode(message, name: "ListCollectionIdsResponse") {
            (reader, field) throws(FirestoreError) in try reader.readString(field, "collection_ids")
        }
        return ListCollectionIdsResponse(collectionIds: page.elements, nextPageToken: page.nextPageToken)
    }
}
