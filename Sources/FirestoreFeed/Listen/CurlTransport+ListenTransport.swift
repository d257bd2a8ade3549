import FirestoreWire

extension CurlTransport: ListenTransport {
    /// A ``GRPCChannel`` to `firestore`'s gRPC server (``Firestore/grpcBaseURL``) with this transport's connect
    /// timeout, user agent, CA bundle and proxy (``GRPCChannel/Configuration/init(_:)``).
    /// - Throws: ``FirestoreError`` `.unknown` when libcurl cannot be initialised.
    package func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel {
        try firestore.makeGRPCChannel(configuration: .init(configuration))
    }
}
