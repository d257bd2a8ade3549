import FirestoreREST

extension ReplayTransport: RPCTransport {
    /// A channel whose calls replay the cassette's recorded gRPC calls (``RPCExchange``); in `.newEpisodes` mode a
    /// call that matches none is recorded through the live transport; in `.once` without a cassette and `.all`, the
    /// live transport's channel with every call recorded.
    /// - Throws: in a recording mode, the live transport's error when it cannot carry gRPC.
    package func makeRPCChannel(for firestore: Firestore) throws(FirestoreError) -> any RPCChannel {
        if let recorder {
            guard mode == .newEpisodes else { return try recorder.makeRPCChannel(for: firestore) }
            let live = try? recorder.makeRPCChannel(for: firestore)
            return ReplayRPCChannel(transport: self, live: live, baseURL: firestore.grpcBaseURL)
        }
        return ReplayRPCChannel(transport: self, live: nil, baseURL: firestore.grpcBaseURL)
    }

    /// `nil`: a replayed call has no deadline.
    package var rpcTimeout: Double? { nil }

    /// 8 calls at once, as the default connection pool.
    package var rpcConcurrency: Int { 8 }

    /// Whether an `.automatic` client replays over gRPC: when the cassette holds recorded gRPC calls and nothing is
    /// being recorded (an `.automatic` recording is REST, ``RecordingTransport/automaticUsesGRPC``).
    package var automaticUsesGRPC: Bool { recorder == nil && holdsRPCCalls }
}
