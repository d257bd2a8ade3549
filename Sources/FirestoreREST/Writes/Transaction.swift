import Synchronization

/// One attempt of a read-write transaction, handed to the closure of
/// ``Firestore/runTransaction(maxAttempts:isolation:_:)``.
///
/// Reads go to the server inside the transaction (batchGet with `transaction` in the body; the emulator hangs
/// on a GET with `?transaction=`, `firestore-rest.md` §2.3) and lock what they read. Writes are buffered and
/// sent together in the commit that ends the transaction. As in the Firebase SDKs every read must come before
/// every write. A transaction is `Sendable`; it is only usable while its closure runs.
public final class Transaction: Sendable {
    /// The client the transaction runs on.
    public let firestore: Firestore
    /// The server's transaction ID (base64).
    public let id: String
    private let state = Mutex(State())

    private struct State {
        var writes: [Write] = []
        var finished = false
    }

    init(firestore: Firestore, id: String) {
        self.firestore = firestore
        self.id = id
    }

    /// Reads `document` inside the transaction. A missing document is a snapshot with `exists == false`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when a write was already added (reads come first), for
    ///   an invalid path or a document of another database; `.failedPrecondition` after the transaction ended;
    ///   `.aborted` when the server gave up on the transaction (``Firestore/runTransaction(maxAttempts:isolation:_:)``
    ///   retries it); otherwise the server's or the transport's error.
    public func getDocument(_ document: DocumentReference) async throws -> DocumentSnapshot {
        let snapshots = try await getDocuments([document])
        guard let snapshot = snapshots.first else {
            throw FirestoreError(code: .internal, message: "batchGet returned no result for \(document.path)")
        }
        return snapshot
    }

    /// Reads several documents inside the transaction in one batchGet; the snapshots are in the order of
    /// `documents`.
    /// - Throws: as ``getDocument(_:)``.
    public func getDocuments(_ documents: [DocumentReference]) async throws -> [DocumentSnapshot] {
        try state.withLock { state throws(FirestoreError) in
            try Self.checkOpen(state)
            guard state.writes.isEmpty else {
                throw .invalidArgument("a transaction must do all its reads before its writes")
            }
        }
        var names: [String] = []
        for document in documents {
            try firestore.checkOwns(document)
            names.append(firestore.database.resourceName(of: try document.resourcePath()))
        }
        guard !names.isEmpty else { return [] }
        let response = try await firestore.batchGet(names: names, transaction: id)
        return zip(documents, names).map { document, name in
            DocumentSnapshot(reference: document, document: response.found[name])
        }
    }

    /// Buffers a set of `document`; see ``DocumentReference/setData(_:merge:)``.
    /// - Returns: this transaction, for chaining.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for invalid data or path or a document of another
    ///   database; `.failedPrecondition` after the transaction ended.
    @discardableResult
    public func setData(_ data: [String: WriteValue], forDocument document: DocumentReference, merge: Bool = false)
        throws(FirestoreError) -> Transaction
    {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: merge ? .mergeAll : .overwrite)
        }
    }

    /// Buffers a set of only the dotted `mergeFields`; see ``DocumentReference/setData(_:mergeFields:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData(_ data: [String: WriteValue], forDocument document: DocumentReference, mergeFields: [String])
        throws(FirestoreError) -> Transaction
    {
        let paths = try WriteEncoder.dottedPaths(mergeFields)
        return try add(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: .mergeFields(paths))
        }
    }

    /// Buffers a set of only the ``FieldPath`` `mergeFields`; see ``DocumentReference/setData(_:mergeFields:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the `mergeFields` rules.
    @discardableResult
    public func setData(
        _ data: [String: WriteValue], forDocument document: DocumentReference, mergeFields: [FieldPath]
    ) throws(FirestoreError) -> Transaction {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.setWrite(data, merge: .mergeFields(mergeFields))
        }
    }

    /// Buffers a create of `document` (the commit fails with `.alreadyExists` when it exists); see
    /// ``DocumentReference/create(_:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``.
    @discardableResult
    public func create(_ data: [String: WriteValue], forDocument document: DocumentReference)
        throws(FirestoreError) -> Transaction
    {
        try add(for: document) { reference throws(FirestoreError) in try reference.createWrite(data) }
    }

    /// Buffers an update of dotted-path fields; see ``DocumentReference/updateData(_:precondition:)``.
    /// - Throws: as ``setData(_:forDocument:merge:)``, and as the update rules.
    @discardableResult
    public func updateData(
        _ fields: [String: WriteValue], forDocument document: DocumentReference, precondition: Precondition? = nil
    ) throws(FirestoreError) -> Transaction {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(dottedFields: fields, precondition: precondition)
        }
    }

    /// Buffers an update of fields named by ``FieldPath``; see
    /// ``DocumentReference/updateData(fields:precondition:)``.
    /// - Throws: as ``updateData(_:forDocument:precondition:)``.
    @discardableResult
    public func updateData(
        fields: [FieldPath: WriteValue], forDocument document: DocumentReference, precondition: Precondition? = nil
    ) throws(FirestoreError) -> Transaction {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(Array(fields), precondition: precondition)
        }
    }

    /// Buffers an update of ordered path–value pairs; see
    /// ``DocumentReference/updateData(pathsAndValues:precondition:)``.
    /// - Throws: as ``updateData(_:forDocument:precondition:)``.
    @discardableResult
    public func updateData(
        pathsAndValues: [(FieldPath, WriteValue)], forDocument document: DocumentReference,
        precondition: Precondition? = nil
    ) throws(FirestoreError) -> Transaction {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.updateWrite(pathsAndValues, precondition: precondition)
        }
    }

    /// Buffers a delete of `document`; see ``DocumentReference/delete(precondition:)``.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid path or a document of another database;
    ///   `.failedPrecondition` after the transaction ended.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference, precondition: Precondition? = nil)
        throws(FirestoreError) -> Transaction
    {
        try add(for: document) { reference throws(FirestoreError) in
            try reference.deleteWrite(precondition: precondition)
        }
    }

    /// Ends the attempt: no more reads or writes. Returns the buffered writes, for the commit.
    func finish() -> [Write] {
        state.withLock { state in
            state.finished = true
            return state.writes
        }
    }

    private func add(for document: DocumentReference, _ encode: (DocumentReference) throws(FirestoreError) -> Write)
        throws(FirestoreError) -> Transaction
    {
        try firestore.checkOwns(document)
        let write = try encode(document)
        try state.withLock { state throws(FirestoreError) in
            try Self.checkOpen(state)
            state.writes.append(write)
        }
        return self
    }

    private static func checkOpen(_ state: State) throws(FirestoreError) {
        guard !state.finished else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "this transaction has ended: use the Transaction only inside the runTransaction closure")
        }
    }
}
