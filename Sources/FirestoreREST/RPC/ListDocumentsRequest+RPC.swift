import FirestoreWire

extension ListDocumentsRequest {
    /// The page `pageToken` over gRPC (`rpc ListDocuments(ListDocumentsRequest) returns (ListDocumentsResponse)`,
    /// `google/firestore/v1/firestore.proto`): the same request and page as the REST GET.
    ///
    /// `ListDocumentsRequest`: `string parent = 1` (the documents root or the parent document),
    /// `string collection_id = 2`, `int32 page_size = 3`, `string page_token = 4`, `string order_by = 6`,
    /// `DocumentMask mask = 7` (`repeated string field_paths = 1`), `bool show_missing = 12`.
    /// - Throws: ``FirestoreError`` as the REST call; `.dataLoss` for a response that does not decode.
    func pageRPC(pageToken: String?) async throws -> ListDocumentsResponse {
        let firestore = collection.firestore
        var writer = ProtobufWriter()
        writer.writeStringField(1, firestore.database.resourceName(of: path.parent))
        writer.writeStringField(2, path.lastSegment)
        writer.writeInt32Field(3, Int32(pageSize))
        if let pageToken { writer.writeStringField(4, pageToken) }
        if let orderBy { writer.writeStringField(6, orderBy) }
        if let fieldMask {
            writer.writeMessageField(7) { mask in
                for field in fieldMask { mask.writeStringField(1, field.description) }
            }
        }
        if showMissing { writer.writeBoolField(12, true) }
        let (page, _) = try await firestore.performRPC(
            FirestoreGRPCMethod.listDocuments, request: writer.bytes, idempotent: true,
            initial: (documents: [Document](), nextPageToken: String?.none)
        ) { (page, message) throws(FirestoreError) in
            page = try Self.decodeListDocumentsResponse(message)
        }
        return ListDocumentsResponse(documents: page.documents.map(snapshot(of:)), nextPageToken: page.nextPageToken)
    }

    /// Decodes a `ListDocumentsResponse` message: `repeated Document documents = 1`, `string next_page_token = 2`
    /// (empty on the last page, given as `nil`).
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the field and byte offset for malformed wire data.
    /// - Complexity: O(n) in the bytes.
    static func decodeListDocumentsResponse(_ message: [UInt8]) throws(FirestoreError)
        -> (documents: [Document], nextPageToken: String?)
    {
        let page = try RPCPageResponse.decode(message, name: "ListDocumentsResponse") {
            (reader, field) throws(FirestoreError) in
            try reader.readMessage(field, "documents") { (nested) throws(FirestoreError) in
                try Document(reading: &nested)
            }
        }
        return (page.elements, page.nextPageToken)
    }
}
