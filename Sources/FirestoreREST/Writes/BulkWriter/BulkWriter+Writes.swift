import FirestoreWire

/// The write methods of ``BulkWriter``, with the names and rules of ``WriteBatch`` (each write is encoded at once, so
/// bad data throws here, not when sent). Each returns the enqueued ``BulkWriter/Operation`` (its `result` is the
/// server's answer) and waits only while ``BulkWriter/Options/maxPendingOperations`` writes are pending.
///
/// Every method throws ``FirestoreError``: `.invalidArgument` for invalid data or path or a document of another
/// database, `.failedPrecondition` after ``BulkWriter/close()``, `.cancelled` when the task is cancelled while
/// waiting for room.
extension BulkWriter {
    /// Enqueues a set of `document`: the whole document, or with `merge` only the leaf fields of `data`; see
    /// ``DocumentReference/setData(_:merge:)``.
    @discardableResult
    public func setData(_ data: [String: FieldValue], forDocument document: DocumentReference, merge: Bool = false)
        async throws(FirestoreError) -> Operation
    {
        try await enqueue(document, .set) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: merge ? .mergeAll : .overwrite)
        }
    }

    /// Enqueues a set of only the dotted `mergeFields`.
    @discardableResult
    public func setData(_ data: [String: FieldValue], forDocument document: DocumentReference, mergeFields: [String])
        async throws(FirestoreError) -> Operation
    {
        let paths = try WriteEncoder.dottedPaths(mergeFields)
        return try await enqueue(document, .set) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: .mergeFields(paths))
        }
    }

    /// Enqueues a set of only the ``FieldPath`` `mergeFields`.
    @discardableResult
    public func setData(
        _ data: [String: FieldValue], forDocument document: DocumentReference, mergeFields: [FieldPath]
    ) async throws(FirestoreError) -> Operation {
        try await enqueue(document, .set) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: .mergeFields(mergeFields))
        }
    }

    /// Enqueues a set of `document` with `value` encoded by `encoder` (``FirestoreEncoder/encodeForWrite(_:)``).
    /// - Throws: `EncodingError` naming the document and field for a value that does not encode (nothing is
    ///   enqueued); otherwise as ``setData(_:forDocument:merge:)``.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false,
        encoder: FirestoreEncoder = FirestoreEncoder()
    ) async throws -> Operation {
        let data = try encoder.encodeForWrite(value, documentPath: document.path)
        return try await setData(data, forDocument: document, merge: merge)
    }

    /// Enqueues a create of `document`, whose result is `.alreadyExists` when the document exists; see
    /// ``DocumentReference/create(_:)``.
    @discardableResult
    public func create(_ data: [String: FieldValue], forDocument document: DocumentReference)
        async throws(FirestoreError) -> Operation
    {
        try await enqueue(document, .create) { reference throws(FirestoreError) in try reference.createWrite(data) }
    }

    /// Enqueues an update of dotted-path fields, whose result is `.notFound` when the document is missing; see
    /// ``DocumentReference/updateData(_:precondition:)``.
    @discardableResult
    public func updateData(
        _ fields: [String: FieldValue], forDocument document: DocumentReference, precondition: Precondition? = nil
    ) async throws(FirestoreError) -> Operation {
        try await enqueue(document, .update) { reference throws(FirestoreError) in
            try reference.updateWrite(dottedFields: fields, precondition: precondition)
        }
    }

    /// Enqueues an update of fields named by ``FieldPath``.
    @discardableResult
    public func updateData(
        fields: [FieldPath: FieldValue], forDocument document: DocumentReference, precondition: Precondition? = nil
    ) async throws(FirestoreError) -> Operation {
        try await enqueue(document, .update) { reference throws(FirestoreError) in
            try reference.updateWrite(Array(fields), precondition: precondition)
        }
    }

    /// Enqueues an update of ordered path–value pairs; see ``DocumentReference/updateData(pathsAndValues:precondition:)``.
    @discardableResult
    public func updateData(
        pathsAndValues: [(FieldPath, FieldValue)], forDocument document: DocumentReference,
        precondition: Precondition? = nil
    ) async throws(FirestoreError) -> Operation {
        try await enqueue(document, .update) { reference throws(FirestoreError) in
            try reference.updateWrite(pathsAndValues, precondition: precondition)
        }
    }

    /// Enqueues a delete of `document` (deleting a missing document succeeds); see
    /// ``DocumentReference/delete(precondition:)``.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference, precondition: Precondition? = nil)
        async throws(FirestoreError) -> Operation
    {
        try await enqueue(document, .delete) { reference throws(FirestoreError) in
            try reference.deleteWrite(precondition: precondition)
        }
    }
}
