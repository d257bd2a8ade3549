import FirestoreWire

extension QuerySnapshot {
    /// The documents decoded into `type`, with the documents that did not decode
    /// (`CodableFieldCaseTests.c12IgnoreKeepsTheDecodableDocumentsAndListsTheFailure`).
    ///
    /// ```swift
    /// let decoded = try snapshot.documents(as: Fruit.self, strategy: .ignore)
    /// show(decoded.values)
    /// for failure in decoded.failures { log(failure) }   // fruits/u2: name: expected String, found integerValue
    /// ```
    /// - Parameters:
    ///   - type: the type each document decodes into.
    ///   - decoder: the decoder (its strategies) to use.
    ///   - strategy: ``DecodingFailureStrategy/raise`` (the default) throws the first failure and returns no
    ///     partial list; ``DecodingFailureStrategy/ignore`` returns what decodes and lists the rest.
    /// - Throws: with `.raise`, the first ``DocumentDecodingFailure`` (`fruits/u2: name: expected String, found
    ///   integerValue`; its ``DocumentDecodingFailure/error`` is the `DecodingError`).
    /// - Complexity: O(n) in the total size of the documents.
    public func documents<T: Decodable>(
        as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder(), strategy: DecodingFailureStrategy = .raise
    ) throws -> DecodedDocuments<T> {
        try DecodedDocuments(decoding: documents, as: type, decoder: decoder, strategy: strategy)
    }
}

extension QueryRepresentable {
    /// Runs the query once and decodes its documents into `type`: ``getDocuments()`` then
    /// ``QuerySnapshot/documents(as:decoder:strategy:)``.
    /// - Throws: ``FirestoreError`` from the query; with `.raise`, the first decoding failure.
    public func getDocuments<T: Decodable>(
        as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder(), strategy: DecodingFailureStrategy = .raise
    ) async throws -> DecodedDocuments<T> {
        try await getDocuments().documents(as: type, decoder: decoder, strategy: strategy)
    }
}
