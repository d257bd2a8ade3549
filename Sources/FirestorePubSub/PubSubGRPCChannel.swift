import FirestoreREST
import FirestoreWire

/// The gRPC side of a ``PubSubPublisher`` (``PubSubProtocol/grpc`` and ``PubSubProtocol/automatic``), shared by the
/// publishers ``PubSubPublisher/using(protocol:)`` makes: the channel (made on the first gRPC publish, then shared by
/// every call: one HTTP/2 connection, a stream a call; closed when the publishers holding it are gone) and, for
/// ``PubSubProtocol/automatic``, until when REST is used because HTTP/2 was refused (`RPCClientState`, as a Firestore
/// client's).
final class PubSubGRPCChannel: Sendable {
    /// `http://HOST:PORT` (the emulator) or `https://HOST[:PORT]`: the REST base URL without its path.
    let baseURL: String
    /// The connect timeout, user agent, CA bundle, proxy and connection health of the REST transport when it is a
    /// `CurlTransport`, else the defaults.
    let configuration: GRPCChannel.Configuration
    /// Each call's deadline in seconds: the `CurlTransport`'s request timeout (default 60), `nil` when that is zero
    /// or less.
    let timeout: Double?
    /// Whether ``PubSubProtocol/automatic`` tries gRPC: the REST transport is a `CurlTransport` (another, a test
    /// double say, is meant to carry every request).
    let automaticUsesGRPC: Bool
    /// The channel, and when HTTP/2 was last refused.
    let state = RPCClientState()

    /// The channel beside a REST client of `restBaseURL` (`scheme://host[:port]/v1/`) on `transport`.
    init(restBaseURL: String, transport: any HTTPTransport) {
        var root = restBaseURL
        if let separator = root.firstRange(of: "://"),
            let path = root[separator.upperBound...].firstIndex(of: "/")
        {
            root = String(root[..<path])
        }
        baseURL = root
        let curl = (transport as? CurlTransport)?.configuration
        configuration = curl.map { GRPCChannel.Configuration($0) } ?? .init()
        let requestTimeout = curl?.requestTimeout ?? 60
        timeout = requestTimeout > 0 ? requestTimeout : nil
        automaticUsesGRPC = curl != nil
    }

    /// The channel, made now when this is the first call.
    /// - Throws: `FirestoreError` `.invalidArgument` for a base URL the channel refuses; `.unknown` when libcurl
    ///   cannot be initialised.
    func get() throws(FirestoreError) -> any RPCChannel {
        let baseURL = baseURL
        let configuration = configuration
        return try state.channel { () throws(FirestoreError) -> any RPCChannel in
            try GRPCChannel(baseURL: baseURL, configuration: configuration)
        }
    }
}
