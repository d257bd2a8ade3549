import FirestoreREST
import FirestoreWire
import Synchronization

/// The gRPC channel of a ``PubSubPublisher``'s gRPC publishes (``PubSubProtocol/grpc``): made on the first one, then
/// shared by every call (one HTTP/2 connection, a stream a call), and closed when the publishers holding it are gone.
final class PubSubGRPCChannel: Sendable {
    /// `http://HOST:PORT` (the emulator) or `https://HOST[:PORT]`: the REST base URL without its path.
    let baseURL: String
    /// The connect timeout, user agent, CA bundle, proxy and connection health of the REST transport when it is a
    /// `CurlTransport`, else the defaults.
    let configuration: GRPCChannel.Configuration
    /// Each call's deadline in seconds: the `CurlTransport`'s request timeout (default 60), `nil` when that is zero
    /// or less.
    let timeout: Double?
    private let channel = Mutex<GRPCChannel?>(nil)

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
    }

    /// The channel, made now when this is the first call.
    /// - Throws: `FirestoreError` `.invalidArgument` for a base URL the channel refuses; `.unknown` when libcurl
    ///   cannot be initialised.
    func get() throws(FirestoreError) -> GRPCChannel {
        try channel.withLock { (channel) throws(FirestoreError) -> GRPCChannel in
            if let channel { return channel }
            let made = try GRPCChannel(baseURL: baseURL, configuration: configuration)
            channel = made
            return made
        }
    }
}
