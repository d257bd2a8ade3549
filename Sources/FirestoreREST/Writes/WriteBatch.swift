import Synchronization

/// Writes collected and committed together, atomically: all apply or none (one commit,
/// `firestore-rest.md` §1.6). Make one with ``Firestore/batch()``.
///
/// ```swift
/// let batch = db.batch()
/// try batch.setData(["name": "Fig"], forDocument: db.document("fruits/fig"))
/// try batch.updateData(["stock": .increment(Int64(-1))], forDocument: db.document("fruits/apple"))
/// try batch.deleteDocument(db.document("fruits/old"))
/// try await batch.commit()
/// ```
///
/// Each write is encoded when it is added, so bad data throws at once (the rules of ``WriteValue`` and the
/// conformance tests), not at commit. A batch is `Sendable`; it commits once.
public final class WriteBatch: Sendable {
    /// The client the batch commits through.
    public let firestore: Firestore
    private let state = Mutex(State())

    private struct State {
        var writes: [Write] = []
        var committed = false
    }

    init(firestore: Firestore) {
        self.firestore = firestore
    }

    /// The number of writes added so far.
    public var count: Int { state.withLock { $0.writes.count } }

    /// The writes added so far, in order, as they will be sent.
    public var writes: [Write] { state.withLock { $0.writes } }

    /// Adds a set of `document`: the whole document without `merge`, only the leaf fields of `data` with it;
    /// see ``DocumentReference/setData(_:merge:)``.
    /// - Returns: this batch, for chaining.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for invalid data or path or a document of another
    ///   database; `.failedPrecondition` when the batch was committed.
    @discardableResult
    public func setData(_ data: [String: WriteValue], forDocument document: DocumentReference, merge: Bool = false)
        throws(FirestoreError) -> WriteBatch
    {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: merge ? .mergeAll : .overwrite)
        }
    }

    /// Adds a set of only the dotted `mergeFields`; see ``DocumentReference/setData(_:mergeFields:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData(_ data: [String: WriteValue], forDocument document: DocumentReference, mergeFields: [String])
        throws(FirestoreError) -> WriteBatch
    {
        let paths = try WriteEncoder.dottedPaths(mergeFields)
        return try add(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: .mergeFields(paths))
        }
    }

    /// Adds a set of only the ``FieldPath`` `mergeFields`; see ``DocumentReference/setData(_:mergeFields:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData(
        _ data: [String: WriteValue], forDocument document: DocumentReference, mergeFields: [FieldPath]
    ) throws(FirestoreError) -> WriteBatch {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: .mergeFields(mergeFields))
        }
    }

    /// Adds a create of `document`, which fails the whole commit with `.alreadyExists` when it exists; see
    /// ``DocumentReference/create(_:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``.
    @discardableResult
    public func create(_ data: [String: WriteValue], forDocument document: DocumentReference)
        throws(FirestoreError) -> WriteBatch
    {
        try add(for: document) { reference throws(FirestoreError) in try reference.createWrite(data) }
    }

    /// Adds an update of dotted-path fields, which fails the whole commit with `.notFound` when the document
    /// is missing; see ``DocumentReference/updateData(_:precondition:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the update rules.
    @discardableResult
    public func updateData(
        _ fields: [String: WriteValue], forDocument document: DocumentReference, precondition: Precondition? = nil
    ) throws(FirestoreError) -> WriteBatch {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(dottedFields: fields, precondition: precondition)
        }
    }

    /// Adds an update of fields named by ``FieldPath``; see ``DocumentReference/updateData(fields:precondition:)``.
    /// - Throws: as ``updateData(_:forDocument:precondition:)``.
    @discardableResult
    public func updateData(
        fields: [FieldPath: WriteValue], forDocument document: DocumentReference, precondition: Precondition? = nil
    ) throws(FirestoreError) -> WriteBatch {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(Array(fields), precondition: precondition)
        }
    }

    /// Adds an update of ordered path–value pairs; see
    /// ``DocumentReference/updateData(pathsAndValues:precondition:)``.
    /// - Throws: as ``updateData(_:forDocument:precondition:)``.
    @discardableResult
    public func updateData(
        pathsAndValues: [(FieldPath, WriteValue)], forDocument document: DocumentReference,
        precondition: Precondition? = nil
    ) throws(FirestoreError) -> WriteBatch {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(pathsAndValues, precondition: precondition)
        }
    }

    /// Adds a delete of `document`; see ``DocumentReference/delete(precondition:)``.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid path or a document of another database;
    ///   `.failedPrecondition` when the batch was committed.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference, precondition: Precondition? = nil)
        throws(FirestoreError) -> WriteBatch
    {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.deleteWrite(precondition: precondition)
        }
    }

    /// Commits every write atomically in one commit request. An empty batch commits fine (the server
    /// answers `{}`). A batch commits once, whatever the outcome.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the batch was already committed; otherwise the
    ///   server's error for the whole batch (nothing was written), e.g. `.notFound` for an update of a missing
    ///   document, or the transport's.
    public func commit() async throws {
        let writes = try state.withLock { state throws(FirestoreError) -> [Write] in
            guard !state.committed else {
                throw FirestoreError(code: .failedPrecondition, message: "this write batch was already committed")
            }
            state.committed = true
            return state.writes
        }
        try await firestore.commit(writes)
    }

    private func add(for document: DocumentReference, _ encode: (DocumentReference) throws(FirestoreError) -> Write)
        throws(FirestoreError) -> WriteBatch
    {
        try firestore.checkOwns(document)
        let write = try encode(document)
        try state.withLock { state throws(FirestoreError) in
            guard !state.committed else {
                throw FirestoreError(
                    code: .failedPrecondition, message: "this write batch was committed; start a new one")
            }
            state.writes.append(write)
        }
        return self
    }
}

extension Firestore {
    /// A new, empty ``WriteBatch`` on this client.
    public func batch() -> WriteBatch { WriteBatch(firestore: self) }

    /// Checks that `document` names a document of this client's database.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming both databases.
    func checkOwns(_ document: DocumentReference) throws(FirestoreError) {
        guard document.firestore.database == database else {
            throw .invalidArgument(
                "\(document) belongs to \(document.firestore.database), not to \(database) of this batch or transaction"
            )
        }
    }
}
