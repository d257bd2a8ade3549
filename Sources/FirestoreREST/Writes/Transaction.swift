import FirestoreWire
import Synchronization

/// One attempt of a read-write transaction, handed to the closure of
/// ``Firestore/runTransaction(maxAttempts:isolation:_:)``.
///
/// Reads go to the server inside the transaction (batchGet or runQuery with the transaction in the body; the
/// emulator hangs on a GET with `?transaction=`, REST reference: `projects.databases.documents.get`) and lock what
/// they read. The first read begins the transaction itself (`newTransaction` in its body; the response hands
/// back the transaction ID), saving the beginTransaction round trip, as the Node SDK does; reads made while it
/// is in flight wait for its ID. An attempt without reads begins its transaction when it commits. Writes are
/// buffered and sent together in the commit that ends the transaction. As in the Firebase SDKs every read must
/// come before every write. A transaction is `Sendable`; it is only usable while its closure runs.
public final class Transaction: WriteCollecting {
    /// The client the transaction runs on.
    public let firestore: Firestore
    /// How the transaction is begun (read-write, naming the attempt it retries).
    let mode: TransactionMode
    private let state: Mutex<State>

    private struct State {
        var writes: [Write] = []
        var finished = false
        var begin: Begin
        var commit: CommitResponse?
    }

    /// Where the transaction is in its beginning.
    private enum Begin {
        /// No read has begun it yet.
        case notBegun
        /// The first read is in flight with `newTransaction`; later reads wait for its ID.
        case beginning(waiters: [CheckedContinuation<String, any Error>])
        /// The server's transaction ID.
        case begun(String)
    }

    /// The consistency of one read: inside the begun transaction, or beginning it.
    enum ReadConsistency {
        case transaction(String)
        case newTransaction(TransactionMode)

        var transaction: String? {
            if case .transaction(let id) = self { id } else { nil }
        }
        var newTransaction: TransactionMode? {
            if case .newTransaction(let mode) = self { mode } else { nil }
        }
    }

    /// A transaction that its first read (or its commit) begins with `mode`.
    init(firestore: Firestore, mode: TransactionMode) {
        self.firestore = firestore
        self.mode = mode
        self.state = Mutex(State(begin: .notBegun))
    }

    /// A transaction the server already began with ID `id`.
    convenience init(firestore: Firestore, id: String) {
        self.init(firestore: firestore, mode: .readWrite(), id: id)
    }

    /// A transaction the server already began with `mode` (beginTransaction), with ID `id`.
    init(firestore: Firestore, mode: TransactionMode, id: String) {
        self.firestore = firestore
        self.mode = mode
        self.state = Mutex(State(begin: .begun(id)))
    }

    /// Whether the transaction only reads (``TransactionOptions/readOnly``): it locks nothing and cannot write.
    public var isReadOnly: Bool {
        if case .readOnly = mode { true } else { false }
    }

    /// The server's transaction ID (base64) once the transaction has begun, `nil` before: its first read begins
    /// it and hands the ID back.
    public var id: String? {
        state.withLock { state in
            if case .begun(let id) = state.begin { id } else { nil }
        }
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
        try await getAll(documents, fieldMask: nil)
    }

    /// Reads several documents inside the transaction in one batchGet, only the fields in `fieldMask`, as the
    /// Node SDK's `Transaction.getAll(...refs, {fieldMask})`; see ``Firestore/getAll(_:fieldMask:readTime:)``.
    /// - Parameters:
    ///   - documents: documents of this client's database; none gives `[]` without a request.
    ///   - fieldMask: the fields to return; `nil` for all.
    /// - Returns: one snapshot per document, in order.
    /// - Throws: as ``getDocument(_:)``.
    public func getAll(_ documents: [DocumentReference], fieldMask: [FieldPath]?) async throws -> [DocumentSnapshot] {
        try checkReadable()
        let names = try firestore.resourceNames(of: documents)
        guard !names.isEmpty else { return [] }
        // Another attempt of this client that holds one of these documents ends first (TransactionLocks); a
        // read-only transaction locks nothing, so it waits for nobody.
        if !isReadOnly { await firestore.transactionLocks.acquire(names, for: ObjectIdentifier(self)) }
        let unique = Firestore.uniqued(names)
        let response = try await read { consistency in
            let response = try await self.firestore.batchGet(
                names: unique, mask: fieldMask, transaction: consistency.transaction,
                newTransaction: consistency.newTransaction)
            return (response, response.transaction)
        }
        return try Firestore.snapshots(of: documents, names: names, in: response)
    }

    /// Runs `query` inside the transaction (runQuery with the transaction; the documents it returns are locked,
    /// as by the Node SDK's `Transaction.get(query)`); every document is reported as `.added`.
    /// - Throws: as ``getDocument(_:)``; `.invalidArgument` for an invalid query, before sending.
    public func getDocuments(_ query: some QueryRepresentable) async throws -> QuerySnapshot {
        try checkReadable()
        let query = query.query
        try firestore.checkOwns(query)
        let response = try await read { consistency in
            let response = try await query.runQuery(
                readTime: nil, transaction: consistency.transaction, newTransaction: consistency.newTransaction)
            return (response, response.transaction)
        }
        return query.snapshot(of: response)
    }

    /// Runs the aggregation inside the transaction (runAggregationQuery with the transaction), as the Node SDK's
    /// `Transaction.get(aggregateQuery)`.
    /// - Throws: as ``getDocument(_:)``; as ``AggregateQuery/getAggregation()`` for the query.
    public func getAggregation(_ query: AggregateQuery) async throws -> AggregateQuerySnapshot {
        try checkReadable()
        try firestore.checkOwns(query.query)
        let response = try await read { consistency in
            let response = try await query.run(
                readTime: nil, transaction: consistency.transaction, newTransaction: consistency.newTransaction)
            return (response, response.transaction)
        }
        return try AggregateQuerySnapshot(query: query, response: response)
    }

    // MARK: - Beginning, committing and rolling back (runTransaction)

    /// Commits the buffered writes inside the transaction, beginning it first when no read did, and keeps the
    /// server's results (``committedWriteResults``). Ends the attempt.
    /// - Throws: the errors of beginTransaction and commit (``Firestore/commit(_:transaction:)``).
    @discardableResult
    func commit() async throws -> CommitResponse {
        let writes = finish()
        // Documents written without being read: take turns for them too before the commit (TransactionLocks).
        await firestore.transactionLocks.acquire(
            writes.map { firestore.database.resourceName(of: $0.path) }, for: ObjectIdentifier(self))
        let id: String
        switch try await beganID() {
        case let begun?: id = begun
        case nil:
            id = try await firestore.beginTransaction(mode)
            state.withLock { $0.begin = .begun(id) }
        }
        let response = try await firestore.commit(writes, transaction: id)
        state.withLock { $0.commit = response }
        return response
    }

    /// The results of the commit that ended this attempt, one per write; `nil` before it committed.
    var committedWriteResults: [WriteResult]? { state.withLock { $0.commit?.writeResults } }

    /// The response of the commit that ended this attempt; `nil` before it committed.
    var committedResponse: CommitResponse? { state.withLock { $0.commit } }

    /// Rolls the transaction back when a read or the commit began it; a rollback error is ignored (the server
    /// has then already closed the transaction). Ends the attempt. The rollback is sent even when the caller's task
    /// was cancelled: the emulator holds a transaction's locks until it ends, so a skipped rollback would keep the
    /// documents it read locked from the next transaction.
    func rollBackIfBegun() async {
        _ = finish()
        guard let id = try? await beganID() else { return }
        let firestore = self.firestore
        await Task { try? await firestore.rollback(transaction: id) }.value
    }

    /// Ends the attempt: no more reads or writes. Returns the buffered writes, for the commit.
    func finish() -> [Write] {
        state.withLock { state in
            state.finished = true
            return state.writes
        }
    }

    /// The transaction's ID once begun, waiting for a beginning read in flight; `nil` when nothing began it.
    private func beganID() async throws -> String? {
        let begun: String?? = state.withLock { state in
            switch state.begin {
            case .notBegun: return .some(nil)
            case .begun(let id): return .some(id)
            case .beginning: return .none
            }
        }
        if let begun { return begun }
        return try await waitForID()
    }

    // MARK: - Reads

    /// Runs one read: inside the transaction when it has begun; as the read that begins it (`newTransaction`)
    /// when none has; after the beginning read's ID arrived when one is in flight. `body` returns the read's
    /// result and the transaction ID its response handed back.
    /// - Throws: the read's error; the beginning read's error to the reads that waited for it (as the Node
    ///   SDK); `.internal` when the beginning read's response carries no transaction ID.
    private func read<Value>(_ body: (ReadConsistency) async throws -> (Value, String?)) async throws -> Value {
        let step = try state.withLock { state throws(FirestoreError) -> ReadStep in
            try Self.checkReadable(state)
            switch state.begin {
            case .begun(let id): return .inside(id)
            case .beginning: return .wait
            case .notBegun:
                state.begin = .beginning(waiters: [])
                return .begin
            }
        }
        switch step {
        case .inside(let id):
            return try await body(.transaction(id)).0
        case .wait:
            return try await body(.transaction(try await waitForID())).0
        case .begin:
            do {
                let (value, returnedID) = try await body(.newTransaction(mode))
                guard let returnedID else {
                    throw FirestoreError(
                        code: .internal, message: "the read that began the transaction returned no transaction ID")
                }
                settleBeginning(.success(returnedID))
                return value
            } catch {
                settleBeginning(.failure(error))
                throw error
            }
        }
    }

    /// What a read does, decided under the lock.
    private enum ReadStep {
        /// Read inside the begun transaction.
        case inside(String)
        /// Begin the transaction with this read.
        case begin
        /// Wait for the beginning read in flight, then read inside.
        case wait
    }

    /// Waits for the beginning read in flight and returns the ID it got.
    /// - Throws: the beginning read's error.
    private func waitForID() async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let settled: Result<String, any Error>? = state.withLock { state in
                switch state.begin {
                case .beginning(var waiters):
                    waiters.append(continuation)
                    state.begin = .beginning(waiters: waiters)
                    return nil
                case .begun(let id):
                    return .success(id)
                case .notBegun:
                    return .failure(
                        FirestoreError(code: .aborted, message: "the read that began the transaction failed"))
                }
            }
            if let settled { continuation.resume(with: settled) }
        }
    }

    /// How many reads wait for the beginning read in flight (for tests).
    var waitingReadCount: Int {
        state.withLock { state in
            if case .beginning(let waiters) = state.begin { waiters.count } else { 0 }
        }
    }

    /// Records how the beginning read ended and resumes the reads that waited for it (outside the lock).
    private func settleBeginning(_ outcome: Result<String, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<String, any Error>] in
            guard case .beginning(let waiters) = state.begin else { return [] }
            switch outcome {
            case .success(let id): state.begin = .begun(id)
            case .failure: state.begin = .notBegun
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }

    private func checkReadable() throws(FirestoreError) {
        try state.withLock { state throws(FirestoreError) in try Self.checkReadable(state) }
    }

    private static func checkReadable(_ state: State) throws(FirestoreError) {
        try checkOpen(state)
        guard state.writes.isEmpty else {
            throw .invalidArgument("a transaction must do all its reads before its writes")
        }
    }

    // MARK: - Writes

    /// Encodes and buffers one write (the hook every ``WriteCollecting`` builder goes through).
    /// - Throws: ``FirestoreError`` from `encode`, `.invalidArgument` for a document of another database or in a
    ///   read-only transaction, `.failedPrecondition` after the transaction ended.
    public func appendWrite(
        for document: DocumentReference, _ encode: (DocumentReference) throws(FirestoreError) -> Write
    ) throws(FirestoreError) {
        guard !isReadOnly else {
            throw .invalidArgument("a read-only transaction cannot write (\(document.path))")
        }
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

extension Firestore {
    /// Checks that `query` runs on this client's database.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming both databases.
    func checkOwns(_ query: Query) throws(FirestoreError) {
        guard query.firestore.database == database else {
            throw .invalidArgument(
                "a query of \(query.firestore.database) cannot run in a transaction of \(database)")
        }
    }
}
