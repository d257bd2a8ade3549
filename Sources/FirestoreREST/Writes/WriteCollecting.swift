import FirestoreWire

/// Something that collects writes to send in one commit: a ``WriteBatch`` or a ``Transaction``. Every
/// builder (`setData`, `create`, `updateData`, `deleteDocument`) encodes its write at once, with the rules
/// of ``FieldValue`` and the conformance tests, so bad data throws when it is added, not at commit.
public protocol WriteCollecting: AnyObject, Sendable {
    /// Encodes one write for `document` with `encode` and appends it.
    /// - Throws: ``FirestoreError`` from `encode`, `.invalidArgument` for a document of another database,
    ///   `.failedPrecondition` when the collector no longer takes writes.
    func appendWrite(for document: DocumentReference, _ encode: (DocumentReference) throws(FirestoreError) -> Write)
        throws(FirestoreError)
}

extension WriteCollecting {
    private func adding(
        for document: DocumentReference, _ encode: (DocumentReference) throws(FirestoreError) -> Write
    ) throws(FirestoreError) -> Self {
        try appendWrite(for: document, encode)
        return self
    }

    /// Adds a set of `document`: the whole document without `merge`, only the leaf fields of `data` with it;
    /// see ``DocumentReference/setData(_:merge:)``.
    /// - Returns: this batch or transaction, for chaining.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for invalid data or path or a document of another
    ///   database; `.failedPrecondition` when the batch was committed or the transaction ended.
    @discardableResult
    public func setData(_ data: [String: FieldValue], forDocument document: DocumentReference, merge: Bool = false)
        throws(FirestoreError) -> Self
    {
        try adding(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: merge ? .mergeAll : .overwrite)
        }
    }

    /// Adds a set of only the dotted `mergeFields`; see `DocumentReference.setData(_:mergeFields:)`.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData(_ data: [String: FieldValue], forDocument document: DocumentReference, mergeFields: [String])
        throws(FirestoreError) -> Self
    {
        let paths = try WriteEncoder.dottedPaths(mergeFields)
        return try adding(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: .mergeFields(paths))
        }
    }

    /// Adds a set of only the ``FieldPath`` `mergeFields`; see `DocumentReference.setData(_:mergeFields:)`.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData(
        _ data: [String: FieldValue], forDocument document: DocumentReference, mergeFields: [FieldPath]
    ) throws(FirestoreError) -> Self {
        try adding(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: .mergeFields(mergeFields))
        }
    }

    /// Adds a create of `document`, which fails the whole commit with `.alreadyExists` when it exists; see
    /// ``DocumentReference/create(_:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``.
    @discardableResult
    public func create(_ data: [String: FieldValue], forDocument document: DocumentReference)
        throws(FirestoreError) -> Self
    {
        try adding(for: document) { reference throws(FirestoreError) in try reference.createWrite(data) }
    }

    /// Adds an update of dotted-path fields, which fails the whole commit with `.notFound` when the document
    /// is missing; see ``DocumentReference/updateData(_:precondition:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the update rules.
    @discardableResult
    public func updateData(
        _ fields: [String: FieldValue], forDocument document: DocumentReference, precondition: Precondition? = nil
    ) throws(FirestoreError) -> Self {
        try adding(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(dottedFields: fields, precondition: precondition)
        }
    }

    /// Adds an update of fields named by ``FieldPath``; see ``DocumentReference/updateData(fields:precondition:)``.
    /// - Throws: as ``updateData(_:forDocument:precondition:)``.
    @discardableResult
    public func updateData(
        fields: [FieldPath: FieldValue], forDocument document: DocumentReference, precondition: Precondition? = nil
    ) throws(FirestoreError) -> Self {
        try adding(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(Array(fields), precondition: precondition)
        }
    }

    /// Adds an update of ordered path–value pairs; see
    /// ``DocumentReference/updateData(pathsAndValues:precondition:)``.
    /// - Throws: as ``updateData(_:forDocument:precondition:)``.
    @discardableResult
    public func updateData(
        pathsAndValues: [(FieldPath, FieldValue)], forDocument document: DocumentReference,
        precondition: Precondition? = nil
    ) throws(FirestoreError) -> Self {
        try adding(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(pathsAndValues, precondition: precondition)
        }
    }

    /// Adds a delete of `document`; see ``DocumentReference/delete(precondition:)``.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid path or a document of another database;
    ///   `.failedPrecondition` when the batch was committed or the transaction ended.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference, precondition: Precondition? = nil)
        throws(FirestoreError) -> Self
    {
        try adding(for: document) { reference throws(FirestoreError) in
            try reference.deleteWrite(precondition: precondition)
        }
    }
}
