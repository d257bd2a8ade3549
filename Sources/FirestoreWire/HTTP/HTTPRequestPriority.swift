extension HTTPRequest {
    /// How urgently a request needs one of a transport's connections when there are fewer free connections than
    /// requests. ``CurlTransport`` keeps a share of its connections from the change feed's polls, so that a crowd
    /// of polls never keeps a write or a read waiting (`WriteStarvationLiveTests`), and never makes the commit
    /// or rollback that ends a transaction wait at all: the emulator holds a commit until its transaction gets the
    /// locks it needs, which the other open transactions of the client hold until their own commits arrive, so a
    /// commit waiting for a connection would keep them all waiting until the lock timeout aborts them
    /// (`TransactionLiveTests`). Transports without a connection pool ignore it.
    ///
    /// ``Firestore`` assigns: ``background`` to the change feed's polls (runQuery and batchGet), ``high`` to the
    /// commit and rollback that end a transaction, ``normal`` to everything else (writes, reads, queries,
    /// beginTransaction, the reads inside a transaction).
    public enum Priority: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        /// Work nobody waits for: the polls of a change feed. Uses only part of the connections, and is served
        /// after the others.
        case background = 0
        /// The default: requests a caller awaits.
        case normal = 1
        /// Requests that end a transaction and release its locks (commit, rollback): they never wait for a
        /// connection (``CurlTransport`` opens an extra one when all are busy).
        case high = 2

        /// Orders by urgency: `background` < `normal` < `high`.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `background`, `normal` or `high`.
        public var description: String {
            switch self {
            case .background: "background"
            case .normal: "normal"
            case .high: "high"
            }
        }
    }
}
