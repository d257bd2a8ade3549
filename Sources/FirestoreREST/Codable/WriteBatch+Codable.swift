extension WriteBatch {
    /// Adds a set of `document` with `value` encoded by `encoder`; see
    /// ``DocumentReference/setData(from:merge:encoder:)``.
    /// - Returns: this batch, for chaining.
    /// - Throws: `EncodingError` for a value that does not encode; otherwise as
    ///   ``setData(_:forDocument:merge:)``.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false,
        encoder: FirestoreEncoder = FirestoreEncoder()
    ) throws -> WriteBatch {
        try setData(encoder.encodeForWrite(value, documentPath: document.path), forDocument: document, merge: merge)
    }

    /// Adds a set of only the dotted `mergeFields` of `value`.
    /// - Throws: as ``setData(from:forDocument:merge:encoder:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, mergeFields: [String],
        encoder: FirestoreEncoder = FirestoreEncoder()
    ) throws -> WriteBatch {
        try setData(
            encoder.encodeForWrite(value, documentPath: document.path), forDocument: document, mergeFields: mergeFields)
    }
}
