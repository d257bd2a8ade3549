import FirestoreWire

extension Firestore {
    /// Shuts this client down: every call in flight ends, its connections close and its threads finish; every
    /// later call fails at once. Idempotent: a second call (or one made meanwhile) returns once the first has
    /// finished.
    ///
    /// ```swift
    /// let db = try Firestore.fromEnvironment(projectID: "demo-fruits")
    /// defer { Task { await db.shutdown() } }   // or, better, await it where the service stops
    /// ```
    ///
    /// What ends, all at once, before this returns:
    /// - requests in flight (REST and gRPC) and calls made afterwards throw ``FirestoreError`` `.cancelled` with
    ///   the message "the Firestore client of projects/{p}/databases/{d} was shut down (Firestore.shutdown()); make
    ///   a new client to go on";
    /// - change feeds of the client (Listen and polling, checkpointed ones and feed group members included) end:
    ///   their streams throw that same error; their Listen streams are closed;
    /// - the gRPC channel's thread and connections (the client's, and each Listen stream's), the libcurl transfer
    ///   threads of requests in flight (a transfer notices within about a second), and the kept-alive connections
    ///   of a ``CurlTransport`` that no transfer uses.
    ///
    /// The client's copies (``using(protocol:)``, ``settingServerTimestamp(on:)``) share its connections and are shut
    /// down with it. A transport given to several clients goes on serving the others (only its idle connections are
    /// closed). No child process is ever started by a client. Checked by `ShutdownLiveTests`, which counts the
    /// threads and file descriptors of a process before the client is made and after this returns.
    public func shutdown() async {
        let rpcState = rpcState
        let lifecycle = lifecycle
        let transport = transport
        await lifecycle.shutDown {
            await rpcState.close(with: lifecycle.shutDownError)
            (transport as? CurlTransport)?.closeIdleConnections()
        }
    }

    /// Whether ``shutdown()`` has been called on this client or one of its copies.
    public var isShutDown: Bool { lifecycle.isShutDown }
}
