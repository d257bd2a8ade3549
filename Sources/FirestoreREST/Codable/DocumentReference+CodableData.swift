import FirestoreWire

extension DocumentReference {
    /// Reads the document and decodes it into `type`: ``getDocument()`` then
    /// ``DocumentSnapshot/data(as:decoder:)``. A missing document is `nil` for an optional `type`
    /// (`getDocument(as: User?.self)`), an error otherwise
    /// (`CodableFieldCaseTests.c13MissingDocumentIsNilForAnOptionalAndNotFoundOtherwise`).
    /// - Throws: ``FirestoreError`` from the read, or `.notFound` for a missing document and a non-optional
    ///   `type`; ``DocumentDecodingFailure`` naming the document and field path
    ///   (`fruits/u2: name: expected String, found integerValue`), wrapping the `DecodingError`.
    public func getDocument<T: Decodable>(as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder())
        async throws -> T
    {
        try await getDocument().data(as: type, decoder: decoder)
    }

    /// Writes `value` encoded with `encoder` (``FirestoreEncoder/encodeForWrite(_:)``): the whole document, or
    /// with `merge` only the fields the model writes (see ``setData(_:merge:)``). ``DocumentID`` properties are
    /// not written; a `nil` ``ServerTimestamp`` becomes the server's commit time; `nil` optionals are left out
    /// unless ``ExplicitNull`` or ``FirestoreEncoder/nilEncodingStrategy-swift.property`` says otherwise (so
    /// with `merge` a `nil` does not clear a stored field by default:
    /// `CodableFieldCaseTests.c15NullStrategyPutsTheNilFieldInTheMergeMask`).
    /// - Returns: the server's ``WriteResult`` (see ``setData(_:merge:)``).
    /// - Throws: `EncodingError` naming the document and field before sending (a value that does not encode as
    ///   a map, `UInt64` above `Int64.max`); ``FirestoreError`` `.invalidArgument` for data Firestore refuses
    ///   (an array inside an array, a reserved field name); otherwise the server's or the transport's error.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, merge: Bool = false, encoder: FirestoreEncoder = FirestoreEncoder()
    ) async throws -> WriteResult {
        try await setData(encoder.encodeForWrite(value, documentPath: path), merge: merge)
    }

    /// Writes only the dotted `mergeFields` of `value` (see ``setData(_:mergeFields:)-(_,[String])``).
    /// - Returns: the server's ``WriteResult``.
    /// - Throws: as ``setData(from:merge:encoder:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, mergeFields: [String], encoder: FirestoreEncoder = FirestoreEncoder()
    ) async throws -> WriteResult {
        try await setData(encoder.encodeForWrite(value, documentPath: path), mergeFields: mergeFields)
    }

    /// Writes only the ``FieldPath`` `mergeFields` of `value`.
    /// - Returns: the server's ``WriteResult``.
    /// - Throws: as ``setData(from:merge:encoder:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, mergeFields: [FieldPath], encoder: FirestoreEncoder = FirestoreEncoder()
    ) async throws -> WriteResult {
        try await setData(encoder.encodeForWrite(value, documentPath: path), mergeFields: mergeFields)
    }
}

extension CollectionReference {
    /// Adds a document with an automatic ID holding `value` encoded with `encoder`; see
    /// ``DocumentReference/setData(from:merge:encoder:)``.
    /// - Returns: the new document's reference.
    /// - Throws: as ``DocumentReference/setData(from:merge:encoder:)``.
    public func addDocument<T: Encodable>(from value: T, encoder: FirestoreEncoder = FirestoreEncoder())
        async throws -> DocumentReference
    {
        let reference = document()
        try await reference.setData(from: value, encoder: encoder)
        return reference
    }
}
