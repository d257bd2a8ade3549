import Synchronization

/// One attempt of a read-write transaction, handed to the closure of
/// ``Firestore/runTransaction(maxAttempts:isolation:_:)``.
///
/// Reads go to the server inside the transaction (batchGet with `transaction` in the body; the emulator hangs
/// on a GET with `?transaction=`, REST reference: `projects.databases.documents.get`) and lock what they read. Writes
/// are buffered and sent together in the commit that ends the transaction. As in the Firebase SDKs every read must come
/// before every write. A transaction is `Sendable`; it is only usable while its closure runs.
public final class Transaction: WriteCollecting {
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
        // Another attempt of this client that holds one of these documents ends first (TransactionLocks).
        await firestore.transactionLocks.acquire(names, for: ObjectIdentifier(self))
        let response = try await firestore.batchGet(names: names, transaction: id)
        return zip(documents, names).map { document, name in
            DocumentSnapshot(reference: document, document: response.found[ByteExactName(name: name)])
        }
    }

    /// Ends the attempt: no more reads or writes. Returns the buffered writes, for the commit.
    func finish() -> [Write] {
        state.withLock { state in
            state.finished = true
            return state.writes
        }
    }

    /// Encodes and buffers one write (the hook every ``WriteCollecting`` builder goes through).
    /// - Throws: ``FirestoreError`` from `encode`, `.invalidArgument` for a document of another database,
    ///   `.failedPrecondition` after the transaction ended.
    public func appendWrite(
        for document: DocumentReference, _ encode: (DocumentReference) throws(FirestoreError) -> Write
    ) throws(FirestoreError) {
        try firestore.checkOwns(document)
        let write = try encode(document)
        try state.withLock { state throws(FirestoreError) in
            try Self.checkOpen(state)
            state.writes.append(write)
        }
    }

    private static func checkOpen(_ state: State) throws(FirestoreError) {
        guard !state.finished else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "this transaction has ended: use the Transaction only inside the runTransaction closure")
        }
    }
}
