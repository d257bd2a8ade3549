import FirestoreWire
import Synchronization

/// Writes collected and committed together, atomically: all apply or none (one commit,
/// REST reference: `projects.databases.documents.commit`). Make one with ``Firestore/batch()``.
///
/// ```swift
/// let batch = db.batch()
/// try batch.setData(["name": "Fig"], forDocument: db.document("fruits/fig"))
/// try batch.updateData(["stock": .increment(Int64(-1))], forDocument: db.document("fruits/apple"))
/// try batch.deleteDocument(db.document("fruits/old"))
/// try await batch.commit()
/// ```
///
/// Each write is encoded when it is added, so bad data throws at once (the rules of ``FieldValue`` and the
/// conformance tests), not at commit. A batch is `Sendable`; it commits once.
public final class WriteBatch: WriteCollecting {
    /// The client the batch commits through.
    public let firestore: Firestore
    private let state = Mutex(State())

    private struct State {
        var writes: [Write] = []
        var committed = false
        var commitTime: Timestamp?
    }

    init(firestore: Firestore) {
        self.firestore = firestore
    }

    /// The number of writes added so far.
    public var count: Int { state.withLock { $0.writes.count } }

    /// The writes added so far, in order, as they will be sent.
    public var writes: [Write] { state.withLock { $0.writes } }

    /// Commits every write atomically in one commit request. An empty batch commits fine (the server
    /// answers `{}`). A batch commits once, whatever the outcome.
    /// - Returns: one ``WriteResult`` per write, in the order the writes were added, as the Node SDK's
    ///   `WriteBatch.commit()` (a delete's `writeTime` is the commit time).
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the batch was already committed; otherwise the
    ///   server's error for the whole batch (nothing was written), e.g. `.notFound` for an update of a missing
    ///   document, or the transport's; `.internal` when the response does not hold one result per write (then the
    ///   commit was applied).
    @discardableResult
    public func commit() async throws -> [WriteResult] {
        let writes = try state.withLock { state throws(FirestoreError) -> [Write] in
            guard !state.committed else {
                throw FirestoreError(code: .failedPrecondition, message: "this write batch was already committed")
            }
            state.committed = true
            return state.writes
        }
        let response = try await firestore.commit(writes)
        state.withLock { $0.commitTime = response.commitTime }
        return response.writeResults
    }

    /// When the batch's commit was applied (REST `CommitResponse.commit_time`; Python `WriteBatch.commit_time`):
    /// the one time every write of the batch took effect, also when each ``WriteResult`` carries its own
    /// `writeTime`. `nil` before ``commit()`` succeeded, and for an empty batch (the server answers `{}`).
    public var commitTime: Timestamp? { state.withLock { $0.commitTime } }

    /// Encodes and appends one write (the hook every ``WriteCollecting`` builder goes through).
    /// - Throws: ``FirestoreError`` from `encode`, `.invalidArgument` for a document of another database,
    ///   `.failedPrecondition` when the batch was committed.
    public func appendWrite(
        for document: DocumentReference, _ encode: (DocumentReference) throws(FirestoreError) -> Write
    ) throws(FirestoreError) {
        try firestore.checkOwns(document)
        let write = try encode(document)
        try state.withLock { state throws(FirestoreError) in
            guard !state.committed else {
                throw FirestoreError(
                    code: .failedPrecondition, message: "this write batch was committed; start a new one")
            }
            state.writes.append(write)
        }
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
