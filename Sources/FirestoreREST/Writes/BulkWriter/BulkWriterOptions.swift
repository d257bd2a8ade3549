import FirestoreWire

extension BulkWriter {
    /// How fast a ``BulkWriter`` may send: the ramp-up of Firestore's 500/50/5 rule, or no limit.
    public enum Throttling: Sendable, Hashable {
        /// No limit: batches go as fast as they are filled (tests, the emulator, a database already warm).
        case disabled
        /// The 500/50/5 rule ("Ramping up traffic", https://firebase.google.com/docs/firestore/best-practices#ramping_up_traffic):
        /// start at `initialOpsPerSecond` (default 500, or `maxOpsPerSecond` when that is lower), add 50 % every
        /// 5 minutes, never above `maxOpsPerSecond` (default 10,000), as the Node SDK's `BulkWriterOptions.throttling`.
        /// Both must be at least 1, and `initialOpsPerSecond` at most `maxOpsPerSecond`. A start below 20 also caps
        /// the batch size at it.
        case rampUp(initialOpsPerSecond: Int? = nil, maxOpsPerSecond: Int? = nil)
    }

    /// What a ``BulkWriter`` does besides writing; every member has the Node SDK's default.
    public struct Options: Sendable {
        /// The throttle; default ``Throttling/rampUp(initialOpsPerSecond:maxOpsPerSecond:)`` with its defaults.
        public var throttling: Throttling
        /// How many writes may be enqueued and not yet finished (sent, retried or waiting in the batch being
        /// filled) before the write methods wait for one to finish: the bound on the writer's memory. Default 500, as
        /// the Node SDK's buffer threshold (which buffers the rest; this writer makes the caller wait instead). At
        /// least 20.
        public var maxPendingOperations: Int
        /// The clock for the throttle and the back-off waits. Default `ContinuousClock()`.
        public var clock: any Clock<Duration>

        /// Options; every parameter has the documented default.
        public init(
            throttling: Throttling = .rampUp(), maxPendingOperations: Int = 500,
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.throttling = throttling
            self.maxPendingOperations = maxPendingOperations
            self.clock = clock
        }
    }

    /// The kind of write an operation is, as the Node SDK's `BulkWriterError.operationType`.
    public enum OperationType: String, Sendable, Hashable {
        /// `create(_:forDocument:)`: fails with `.alreadyExists` when the document exists.
        case create
        /// `setData(_:forDocument:merge:)` and its variants.
        case set
        /// `updateData(_:forDocument:precondition:)` and its variants: fails with `.notFound` when the document is
        /// missing.
        case update
        /// `deleteDocument(_:precondition:)`.
        case delete
    }
}
