import FirestoreWire

/// How ``Firestore/runTransaction(options:isolation:_:)`` runs a transaction: read-write or read-only, how many
/// attempts, and when the transaction begins (the Node SDK's `ReadWriteTransactionOptions` /
/// `ReadOnlyTransactionOptions`, the Python SDK's `Client.transaction(max_attempts=, read_only=)`; REST reference:
/// `TransactionOptions`).
///
/// ```swift
/// let snapshot = try await db.runTransaction(options: .readOnly()) { transaction in
///     try await transaction.getAll([db.document("accounts/a"), db.document("accounts/b")], fieldMask: nil)
/// }
/// ```
public struct TransactionOptions: Sendable, Hashable {
    /// When the transaction begins on the server.
    public enum Begin: Sendable, Hashable {
        /// Its first read begins it (`newTransaction` in the read's body), saving a round trip, as the Node SDK
        /// does; an attempt without reads begins it at its commit. A read-only transaction that reads nothing is
        /// never begun.
        case withFirstRead
        /// A `beginTransaction` request begins it before the closure runs, and it is rolled back when the closure
        /// throws, as the Python SDK's `@transactional` does: the read-only consistent point is the moment it
        /// began, not its first read.
        case beforeFirstRead
    }

    /// Whether the transaction only reads (REST `TransactionOptions.read_only`): its reads lock nothing, it
    /// cannot write, it never commits and it is never retried (a read-only transaction meets no contention).
    public var readOnly: Bool
    /// For a read-only transaction, the time every read sees (REST `TransactionOptions.ReadOnly.read_time`): within
    /// the last hour, or up to 7 days back with point-in-time recovery, in production (older is
    /// `failed-precondition`); `nil` reads the moment the transaction begins. Ignored for a read-write one.
    public var readTime: Timestamp?
    /// Attempts in all for a read-write transaction (at least 1; the Node and Python default, 5); a read-only
    /// transaction makes exactly 1.
    public var maxAttempts: Int
    /// When the transaction begins (``Begin``).
    public var begin: Begin

    /// A read-write transaction: reads lock what they read, the writes commit atomically, and an attempt that
    /// loses a conflict (`aborted`) runs again, up to `maxAttempts` in all.
    /// - Parameters:
    ///   - maxAttempts: attempts in all, at least 1.
    ///   - begin: when the transaction begins.
    public static func readWrite(maxAttempts: Int = 5, begin: Begin = .withFirstRead) -> TransactionOptions {
        TransactionOptions(readOnly: false, readTime: nil, maxAttempts: maxAttempts, begin: begin)
    }

    /// A read-only transaction: every read sees one consistent point in time (`readTime`, or the moment the
    /// transaction begins), nothing is locked, nothing is written, nothing is committed, no attempt is retried.
    /// - Parameters:
    ///   - readTime: the point in time to read, or `nil` for the moment it begins.
    ///   - begin: when the transaction begins.
    public static func readOnly(readTime: Timestamp? = nil, begin: Begin = .withFirstRead) -> TransactionOptions {
        TransactionOptions(readOnly: true, readTime: readTime, maxAttempts: 1, begin: begin)
    }

    /// The REST mode of one attempt; `retrying` names the read-write transaction an aborted attempt began.
    func mode(retrying: String?) -> TransactionMode {
        readOnly ? .readOnly(readTime: readTime) : .readWrite(retrying: retrying)
    }
}
