import FirestoreWire

extension Firestore {
    /// Where this client logs (trace and debug only): requests with their method, status, attempt and duration,
    /// and its feeds' events. `nil` (the default) logs nothing. Shared by the clients made from this one
    /// (``settingServerTimestamp(on:)``). Settable at any time, from any task.
    public var logHandler: (any FirestoreLogHandler)? {
        get { observability.logHandler }
        set { observability.logHandler = newValue }
    }

    /// Where this client's metrics go (``FirestoreMetricsFactory`` lists them). `nil` (the default) records
    /// nothing. Settable at any time, from any task; setting it drops the handlers made by the previous factory.
    public var metricsFactory: (any FirestoreMetricsFactory)? {
        get { observability.metricsFactory }
        set { observability.metricsFactory = newValue }
    }

    /// The metadata every message of this client carries.
    package var logMetadata: [String: String] {
        ["firestore.project": database.projectID, "firestore.database": database.databaseID]
    }
}
