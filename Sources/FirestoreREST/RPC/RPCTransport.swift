import FirestoreWire

/// An ``HTTPTransport`` that can also carry a client's unary and server-streaming gRPC calls. A client whose
/// protocol is ``FirestoreProtocol/grpc`` needs one; with ``FirestoreProtocol/automatic`` a transport that does
/// not adopt this protocol sends everything over REST.
package protocol RPCTransport: HTTPTransport {
    /// A channel for the calls of `firestore` (which names the server, ``Firestore/grpcBaseURL``).
    /// - Throws: ``FirestoreError`` saying why this transport cannot carry gRPC calls for `firestore`.
    func makeRPCChannel(for firestore: Firestore) throws(FirestoreError) -> any RPCChannel

    /// The deadline of each call, in seconds (the REST requests' whole-request timeout), or `nil` for none.
    var rpcTimeout: Double? { get }

    /// How many of a client's calls of `normal` priority run at once (``RPCCallGate``): the REST connection pool's
    /// size, so that the server sees as many requests at once over either protocol.
    var rpcConcurrency: Int { get }

    /// Whether a ``FirestoreProtocol/automatic`` client sends its calls over gRPC on this transport (`true` by
    /// default); `false` keeps it to REST, as FirestoreTesting's recorder does so that an `.automatic` recording
    /// stays readable JSON.
    var automaticUsesGRPC: Bool { get }
}

extension RPCTransport {
    /// `true`: an `.automatic` client tries gRPC first.
    package var automaticUsesGRPC: Bool { true }
}
