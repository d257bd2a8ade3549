import FirestoreWire

/// A log level, as swift-log's `Logger.Level` (https://github.com/apple/swift-log): the library logs only at
/// ``trace`` and ``debug``, swift-log's guidance for libraries.
public enum FirestoreLogLevel: String, Sendable, Hashable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}

/// Where the client's log messages go: the shape of swift-log's `LogHandler.log(level:message:metadata:source:
/// file:function:line:)`, so that an adapter to a swift-log `Logger` is a few lines (<doc:LoggingAndMetrics>).
/// Set on a client with ``Firestore/logHandler``; nothing is logged by default.
///
/// Metadata keys: `firestore.project`, `firestore.database`, `firestore.method` (the REST method, e.g. `runQuery`),
/// `firestore.status` (the HTTP status, or the error code), `firestore.attempt`, `firestore.duration_ms`,
/// `firestore.target` (a feed's query), `firestore.shard` (a feed group's shard).
public protocol FirestoreLogHandler: Sendable {
    /// One message. Called from any task or thread; must not block for long.
    func log(
        level: FirestoreLogLevel, message: String, metadata: [String: String], source: String, file: String,
        function: String, line: UInt)
}
