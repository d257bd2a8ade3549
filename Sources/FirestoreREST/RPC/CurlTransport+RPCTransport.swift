import FirestoreWire

extension CurlTransport: RPCTransport {
    /// A ``GRPCChannel`` to `firestore`'s gRPC server (``Firestore/grpcBaseURL``) with this transport's connect
    /// timeout, user agent, CA bundle and proxy (``GRPCChannel/Configuration/init(_:)``), as the Listen stream's.
    /// - Throws: ``FirestoreError`` `.unknown` when libcurl cannot be initialised.
    package func makeRPCChannel(for firestore: Firestore) throws(FirestoreError) -> any RPCChannel {
        try firestore.makeGRPCChannel(configuration: .init(configuration))
    }

    /// ``CurlTransport/Configuration/requestTimeout`` (seconds), or `nil` when it is zero or less.
    package var rpcTimeout: Double? {
        configuration.requestTimeout > 0 ? configuration.requestTimeout : nil
    }

    /// ``CurlTransport/Configuration/maxConnections``.
    package var rpcConcurrency: Int { configuration.maxConnections }
}
