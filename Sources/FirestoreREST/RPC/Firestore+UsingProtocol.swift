import FirestoreWire

extension Firestore {
    /// A client like this one (same database, credentials, transport, retries, server-time field and gRPC
    /// channel) whose calls use `wireProtocol`.
    ///
    /// ```swift
    /// let db = try Firestore.fromEnvironment(projectID: "demo").using(protocol: .automatic)
    /// let fruits = try await db.collection("fruits").getDocuments()   // RunQuery over gRPC
    /// ```
    /// - Parameter wireProtocol: ``FirestoreProtocol/rest``, ``FirestoreProtocol/grpc`` or
    ///   ``FirestoreProtocol/automatic``.
    /// - Complexity: O(1); nothing is sent.
    public func using(protocol wireProtocol: FirestoreProtocol) -> Firestore {
        Firestore(self, serverTimestampField: serverTimestampField, wireProtocol: wireProtocol)
    }
}
