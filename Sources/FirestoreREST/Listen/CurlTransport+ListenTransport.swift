extension CurlTransport: ListenTransport {
    /// The client's own gRPC channel (``GRPCChannel``, made at its first gRPC call or here), so that its Listen
    /// stream and its other gRPC calls share one HTTP/2 connection, as the Firebase SDKs' do; with this transport's
    /// connect timeout, user agent, CA bundle and proxy (``GRPCChannel/Configuration/init(_:)``).
    /// - Throws: ``FirestoreError`` with the client's shutdown error once it was shut down; `.unknown` when libcurl
    ///   cannot be initialised.
    package func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel {
        // A client on another transport wrapping this one (a recorder) keeps a channel of its own.
        if (firestore.transport as AnyObject) === self, let shared = try firestore.rpcChannel() as? GRPCChannel {
            return shared
        }
        return try firestore.makeGRPCChannel(configuration: .init(configuration))
    }
}
