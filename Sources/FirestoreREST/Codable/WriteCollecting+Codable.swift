import FirestoreWire

extension WriteCollecting {
    /// Adds a set of `document` with `value` encoded by `encoder` (``FirestoreEncoder/encodeForWrite(_:)``), to a
    /// ``WriteBatch`` or ``Transaction``; see ``DocumentReference/setData(from:merge:encoder:)``.
    /// - Returns: this batch or transaction, for chaining.
    /// - Throws: `EncodingError` naming the document and field for a value that does not encode (nothing is
    ///   added); otherwise as ``setData(_:forDocument:merge:)``.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false,
        encoder: FirestoreEncoder = FirestoreEncoder()
    ) throws -> Self {
        try setData(encoder.encodeForWrite(value, documentPath: document.path), forDocument: document, merge: merge)
    }

    /// Adds a set of only the dotted `mergeFields` of `value`.
    /// - Throws: as ``setData(from:forDocument:merge:encoder:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, mergeFields: [String],
        encoder: FirestoreEncoder = FirestoreEncoder()
    ) throws -> Self {
        try setData(
            encoder.encodeForWrite(value, documentPath: document.path), forDocument: document, mergeFields: mergeFields)
    }

    /// Adds a set of only the ``FieldPath`` `mergeFields` of `value`.
    /// - Throws: as ``setData(from:forDocument:merge:encoder:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, mergeFields: [FieldPath],
        encoder: FirestoreEncoder = FirestoreEncoder()
    ) throws -> Self {
        try setData(
            encoder.encodeForWrite(value, documentPath: document.path), forDocument: document, mergeFields: mergeFields)
    }
}
