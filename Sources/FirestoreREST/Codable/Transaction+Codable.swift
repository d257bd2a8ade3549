extension Transaction {
    /// Reads `document` in the transaction and decodes it into `type`; a missing document is `nil` for an
    /// optional `type` (see ``DocumentSnapshot/data(as:decoder:)``).
    /// - Throws: as ``getDocument(_:)``; ``FirestoreError`` `.notFound` for a missing document and a
    ///   non-optional `type`; `DecodingError` naming the document and field path.
    public func getDocument<T: Decodable>(
        _ document: DocumentReference, as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder()
    ) async throws -> T {
        try await getDocument(document).data(as: type, decoder: decoder)
    }

    /// Adds a set of `document` with `value` encoded by `encoder`; see
    /// ``DocumentReference/setData(from:merge:encoder:)``.
    /// - Returns: this transaction, for chaining.
    /// - Throws: `EncodingError` for a value that does not encode; otherwise as
    ///   ``setData(_:forDocument:merge:)``.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false,
        encoder: FirestoreEncoder = FirestoreEncoder()
    ) throws -> Transaction {
        try setData(encoder.encodeForWrite(value, documentPath: document.path), forDocument: document, merge: merge)
    }
}
