import FirestoreREST
import FirestoreWire
import Foundation

/// A client of Pub/Sub's REST API (`https://pubsub.googleapis.com/v1/`, or an emulator) for what a change feed
/// needs: publishing messages to a topic (``publish(_:to:)``) and creating topics and subscriptions (for tests and
/// the CLI's `--create-topic`).
///
/// It publishes over REST with the package's HTTP transport (libcurl: HTTP/2 over TLS; given none, a pool of
/// ``maxRequestsInFlight`` connections), or over gRPC on the package's own HTTP/2 channel (one connection), as
/// ``wireProtocol`` says (``PubSubProtocol``; by default gRPC where the transport allows it, see <doc:PublishingToPubSub> for the figures),
/// with its `Credentials`. For production, the credentials need a scope Pub/Sub accepts
/// (`https://www.googleapis.com/auth/pubsub` or `https://www.googleapis.com/auth/cloud-platform`): a service account's
/// default scope for Firestore (`datastore`) is refused there. An emulator gets no credentials, as Google's clients
/// send none to the host named by `PUBSUB_EMULATOR_HOST`.
public final class PubSubPublisher: Sendable {
    /// The API's base URL, ending in `/v1/`.
    public let baseURL: String
    /// Where the `Authorization` header comes from (`NoCredentials` for an emulator).
    public let credentials: any Credentials
    /// The HTTP transport.
    public let transport: any HTTPTransport
    /// Whether the server is an emulator.
    public let isEmulator: Bool
    /// How a publish is retried.
    public let retry: PubSubRetrySettings
    /// How many publish requests one ``publish(_:to:)`` call keeps in flight at most (each ordering key's messages
    /// go in requests of their own, so a snapshot of many documents is many requests).
    public let maxRequestsInFlight: Int
    /// The wire protocol of ``publish(_:to:)``'s requests (``PubSubProtocol``); topics and subscriptions are created
    /// over REST whatever it says. ``using(protocol:)`` returns a publisher with another.
    public let wireProtocol: PubSubProtocol
    /// The gRPC channel of the gRPC publishes, shared with the publishers ``using(protocol:)`` makes.
    let grpc: PubSubGRPCChannel

    /// A client of Pub/Sub in production: `https://pubsub.googleapis.com/v1/`, or `endpoint` (an `https` URL ending
    /// in `/v1/`, say a regional endpoint).
    /// - Throws: `FirestoreError` `.invalidArgument` when `endpoint` is not `https`; `maxRequestsInFlight` below 1;
    ///   `.failedPrecondition` for emulator credentials (a Firestore emulator client's, which go to no production
    ///   service: set `PUBSUB_EMULATOR_HOST` to publish to the Pub/Sub emulator instead).
    public convenience init(
        credentials: any Credentials, endpoint: String = "https://pubsub.googleapis.com/v1/",
        transport: (any HTTPTransport)? = nil, retry: PubSubRetrySettings = .publishDefaults,
        maxRequestsInFlight: Int = 16, protocol wireProtocol: PubSubProtocol = .automatic
    ) throws(FirestoreError) {
        guard endpoint.lowercased().hasPrefix("https://") else {
            throw .invalidArgument("Pub/Sub endpoint \"\(endpoint)\" must be https (credentials travel with it)")
        }
        guard credentials.audience.allows(emulator: false) else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "refusing to send emulator credentials (\(type(of: credentials))) to Pub/Sub at "
                    + "\(endpoint); to publish to the Pub/Sub emulator, set PUBSUB_EMULATOR_HOST (or use "
                    + "PubSubPublisher.emulator(host:))")
        }
        let baseURL = endpoint.hasSuffix("/") ? endpoint : endpoint + "/"
        let transport = transport ?? Self.defaultTransport(maxRequestsInFlight)
        try self.init(
            baseURL: baseURL, credentials: credentials, transport: transport, isEmulator: false, retry: retry,
            maxRequestsInFlight: maxRequestsInFlight, wireProtocol: wireProtocol,
            grpc: PubSubGRPCChannel(restBaseURL: baseURL, transport: transport))
    }

    /// A client of the Pub/Sub emulator at `host` (`HOST:PORT`, as `PUBSUB_EMULATOR_HOST` holds it), over plain HTTP
    /// (REST, or gRPC over HTTP/2 with prior knowledge on the same port) with no credentials.
    /// - Throws: `FirestoreError` `.invalidArgument` when `host` is not `HOST:PORT`; `maxRequestsInFlight` below 1.
    public static func emulator(
        host: String, transport: (any HTTPTransport)? = nil, retry: PubSubRetrySettings = .publishDefaults,
        maxRequestsInFlight: Int = 16, protocol wireProtocol: PubSubProtocol = .automatic
    ) throws(FirestoreError) -> PubSubPublisher {
        var address = host
        if address.hasPrefix("http://") { address.removeFirst("http://".count) }
        while address.hasSuffix("/") { address.removeLast() }
        guard Firestore.isHostAndPort(address) else {
            throw .invalidArgument(
                "invalid Pub/Sub emulator host \"\(host)\": expected HOST:PORT (a name, IPv4 or [IPv6] address, "
                    + "port 1-65535)")
        }
        let baseURL = "http://\(address)/v1/"
        let transport = transport ?? defaultTransport(maxRequestsInFlight)
        return try PubSubPublisher(
            baseURL: baseURL, credentials: NoCredentials(), transport: transport, isEmulator: true, retry: retry,
            maxRequestsInFlight: maxRequestsInFlight, wireProtocol: wireProtocol,
            grpc: PubSubGRPCChannel(restBaseURL: baseURL, transport: transport))
    }

    /// The emulator named by `PUBSUB_EMULATOR_HOST` when it is set (as Google's Pub/Sub clients read it), else
    /// Pub/Sub in production with `credentials`.
    /// - Throws: as ``emulator(host:transport:retry:maxRequestsInFlight:protocol:)`` and
    ///   ``init(credentials:endpoint:transport:retry:maxRequestsInFlight:protocol:)``.
    public static func fromEnvironment(
        credentials: any Credentials, transport: (any HTTPTransport)? = nil,
        retry: PubSubRetrySettings = .publishDefaults, protocol wireProtocol: PubSubProtocol = .automatic
    ) throws(FirestoreError) -> PubSubPublisher {
        if let host = ProcessInfo.processInfo.environment["PUBSUB_EMULATOR_HOST"], !host.isEmpty {
            return try emulator(host: host, transport: transport, retry: retry, protocol: wireProtocol)
        }
        return try PubSubPublisher(credentials: credentials, transport: transport, retry: retry, protocol: wireProtocol)
    }

    /// A publisher like this one (same server, credentials, transport, retries, limit of requests in flight and gRPC
    /// channel) whose publishes use `wireProtocol`.
    /// - Complexity: O(1); nothing is sent.
    public func using(protocol wireProtocol: PubSubProtocol) -> PubSubPublisher {
        PubSubPublisher(self, wireProtocol: wireProtocol)
    }

    /// The transport of a publisher given none: libcurl with a connection pool of `maxRequestsInFlight` (the
    /// transport's default pool of 8 would hold the other requests back).
    static func defaultTransport(_ maxRequestsInFlight: Int) -> CurlTransport {
        CurlTransport(configuration: .init(maxConnections: max(maxRequestsInFlight, 1)))
    }

    private init(
        baseURL: String, credentials: any Credentials, transport: any HTTPTransport, isEmulator: Bool,
        retry: PubSubRetrySettings, maxRequestsInFlight: Int, wireProtocol: PubSubProtocol, grpc: PubSubGRPCChannel
    ) throws(FirestoreError) {
        guard maxRequestsInFlight >= 1 else {
            throw .invalidArgument("maxRequestsInFlight must be at least 1, not \(maxRequestsInFlight)")
        }
        self.baseURL = baseURL
        self.credentials = credentials
        self.transport = transport
        self.isEmulator = isEmulator
        self.retry = retry
        self.maxRequestsInFlight = maxRequestsInFlight
        self.wireProtocol = wireProtocol
        self.grpc = grpc
    }

    private init(_ other: PubSubPublisher, wireProtocol: PubSubProtocol) {
        baseURL = other.baseURL
        credentials = other.credentials
        transport = other.transport
        isEmulator = other.isEmulator
        retry = other.retry
        maxRequestsInFlight = other.maxRequestsInFlight
        self.wireProtocol = wireProtocol
        grpc = other.grpc
    }

    /// Sends one request (`resource` after `/v1/`, percent-encoded) with the credentials, once more with a new token
    /// after a `401` the credentials can refresh, and returns the answer's JSON.
    /// - Throws: `FirestoreError`: the server's error (its `status` decoded), the transport's, the credentials'.
    package func send(_ method: String, _ resource: String, body: JSONValue?) async throws -> JSONValue {
        let request = HTTPRequest(
            method: method, url: baseURL + resource,
            headers: body == nil ? [] : [HTTPHeader("Content-Type", "application/json")],
            // A publish may go out on a reused connection (libcurl resends it if that connection closes unanswered):
            // a publish is at least once anyway (``publish(_:to:)`` retries), and a fresh connection a request costs
            // the emulator about 15 % of its publish rate.
            body: body.map { $0.serialized() }, isIdempotent: method != "POST" || resource.hasSuffix(":publish"))
        let response = try await credentials.refreshingOnce {
            var attempt = request
            let authorization = isEmulator ? nil : try await credentials.authorizationHeader()
            if let authorization { attempt.headers.append(HTTPHeader("Authorization", authorization)) }
            if !isEmulator, let project = credentials.quotaProjectID {
                attempt.headers.append(HTTPHeader("x-goog-user-project", project))
            }
            let response = try await transport.send(attempt)
            return (response, response.status == 401 ? authorization : nil)
        }
        guard (200..<300).contains(response.status) else {
            throw FirestoreError(status: response.status, body: response.body)
        }
        if response.body.isEmpty { return .object([:]) }
        do {
            return try JSONValue.parse(response.body)
        } catch {
            throw FirestoreError(
                code: .internal, message: "Pub/Sub \(method) \(resource): the answer is not JSON: \(error)")
        }
    }
}
