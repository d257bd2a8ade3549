import FirestoreWire

extension Firestore {
    /// GetDocument over gRPC (`rpc GetDocument(GetDocumentRequest) returns (Document)`,
    /// `google/firestore/v1/firestore.proto`): the same read as the REST GET of a document.
    ///
    /// `GetDocumentRequest`: `string name = 1` (mask, transaction and read time are not sent). The response is the
    /// `Document`.
    /// - Parameter path: the document's path.
    /// - Returns: the document.
    /// - Throws: ``FirestoreError``: the server's `.notFound` for a missing document (``FirestoreError/isServerStatus``
    ///   set, as a REST 404 with a Firestore error body); `.dataLoss` for a response that does not decode;
    ///   `.internal` when the server sends no document.
    func getDocumentRPC(_ path: ResourcePath) async throws -> Document {
        var writer = ProtobufWriter()
        writer.writeStringField(1, database.resourceName(of: path))
        let (document, _) = try await performRPC(
            FirestoreGRPCMethod.getDocument, request: writer.bytes, idempotent: true, initial: Document?.none
        ) { (document, message) throws(FirestoreError) in
            document = try Document(protobuf: message)
        }
        guard let document else {
            throw FirestoreError(code: .internal, message: "GetDocument returned no document for \(path)")
        }
        return document
    }
}
