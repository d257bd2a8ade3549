import FirestoreWire

extension Transaction {
    /// Reads `document` in the transaction and decodes it into `type`; a missing document is `nil` for an
    /// optional `type` (see ``DocumentSnapshot/data(as:decoder:)``).
    /// - Throws: as ``getDocument(_:)``; ``FirestoreError`` `.notFound` for a missing document and a
    ///   non-optional `type`; ``DocumentDecodingFailure`` naming the document and field path.
    public func getDocument<T: Decodable>(
        _ document: DocumentReference, as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder()
    ) async throws -> T {
        try await getDocument(document).data(as: type, decoder: decoder)
    }
}
