import FirestoreREST

extension RecordingTransport: RPCTransport {
    /// The live transport's gRPC channel with every call recorded as an interaction (``RPCExchange``).
    /// - Throws: `FirestoreError` `.failedPrecondition` when the live transport cannot carry gRPC calls; the live
    ///   transport's own error.
    package func makeRPCChannel(for firestore: Firestore) throws(FirestoreError) -> any RPCChannel {
        guard let live = live as? any RPCTransport else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "the recording transport's live transport (\(type(of: live))) cannot carry gRPC calls")
        }
        return RecordingRPCChannel(
            base: try live.makeRPCChannel(for: firestore), transport: self, baseURL: firestore.grpcBaseURL)
    }

    /// The live transport's deadline per call, or `nil`.
    package var rpcTimeout: Double? { (live as? any RPCTransport)?.rpcTimeout }

    /// The live transport's number of concurrent calls, or 8.
    package var rpcConcurrency: Int { (live as? any RPCTransport)?.rpcConcurrency ?? 8 }

    /// `false`: an `.automatic` client records REST exchanges (readable JSON); a `.grpc` client records its gRPC
    /// calls.
    package var automaticUsesGRPC: Bool { false }
}
