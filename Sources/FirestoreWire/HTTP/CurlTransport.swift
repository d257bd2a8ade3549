import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An ``HTTPTransport`` built directly on the system libcurl (HTTP/1.1, and HTTP/2 over TLS when the server
/// offers it through ALPN, as production Firestore does).
///
/// - Connections are kept alive and reused through a bounded pool of libcurl easy handles: at most
///   ``Configuration/maxConnections`` transfers run at once, each on its own handle, and each handle keeps at
///   most one connection open. A request that finds no handle it may take waits (without blocking a thread)
///   until one is returned; waiting requests are served by ``HTTPRequest/priority``, then first come, first
///   served. Change-feed polls (``HTTPRequest/Priority/background``) leave a share of the connections to other
///   requests (see ``Configuration/maxConnections``), so writes and reads never wait behind a crowd of polls. The
///   commit or rollback that ends a transaction (``HTTPRequest/Priority/high``) never waits: when every pooled
///   connection is busy it goes out on an extra connection of its own, closed afterwards, since the server may
///   hold the locks that the other requests wait for until that commit arrives. So the TCP connections never
///   exceed the pool size plus the transactions ending at that moment. The
///   most recently used idle handle is taken first, as it is the one most likely to hold a live connection. A request that is not
///   ``HTTPRequest/isIdempotent`` (a commit) goes out on a new connection, because libcurl silently resends
///   a request whose reused connection closes without an answer.
/// - The blocking `curl_easy_perform` runs on a thread of its own (one short-lived thread per transfer), never
///   on the Swift cooperative thread pool or a shared Dispatch queue, so slow transfers cannot starve other
///   work or each other; the calling task is suspended until the transfer ends.
/// - `https`: the server's certificate chain and host name are always verified (TLS 1.2 or newer), against
///   the system trust store or ``Configuration/caBundlePath``; there is no option to turn verification off.
/// - Proxies: by default libcurl's environment variables are honoured (`http_proxy` for `http://` URLs,
///   `https_proxy`/`HTTPS_PROXY` for `https://`, `all_proxy`/`ALL_PROXY`, and `no_proxy`/`NO_PROXY` for
///   exceptions; the upper-case `HTTP_PROXY` is ignored, as in every CGI-safe client). ``Configuration/proxy``
///   overrides them.
/// - Response bodies compressed with any encoding libcurl supports (gzip, deflate, br, zstd) are requested
///   and arrive decoded in ``HTTPResponse/body``. The response headers are passed on as received, so
///   `Content-Encoding` and `Content-Length` describe the bytes on the wire, not the decoded body.
/// - Every HTTP response is returned, whatever its status; see ``send(_:)`` for what is thrown. Redirects
///   are not followed (a 3xx is returned like any other response).
///
/// Safe to share between tasks and threads.
public final class CurlTransport: HTTPTransport {
    /// Limits, security settings and identification used for every request of a ``CurlTransport``.
    public struct Configuration: Sendable, Hashable {
        /// Longest time to establish a connection (TCP and TLS handshakes), in seconds. Default 10.
        /// Zero or less means libcurl's built-in default (300 s).
        public var connectTimeout: Double
        /// Longest time for a whole request, connecting included, in seconds. Default 60.
        /// Zero or less means no limit.
        public var requestTimeout: Double
        /// The largest response body accepted, in bytes, counted after decompression. Default 256 MiB
        /// (268,435,456 bytes). A larger body aborts the transfer with a `.resourceExhausted` error.
        public var maxResponseBytes: Int
        /// The `User-Agent` header value sent unless the request sets its own. Default the package's name and
        /// version, `firestore-feed-swift/0.1.0`.
        public var userAgent: String
        /// The most transfers (and TCP connections) this transport has at once; more concurrent requests wait
        /// for a free connection. Default 8; values below 1 count as 1.
        ///
        /// Change-feed polls (``HTTPRequest/Priority/background``) take at most three quarters of them and always
        /// leave one (6 of the default 8; with 1 connection, that one); other requests may take all of them. A
        /// ``HTTPRequest/Priority/high`` request (a transaction's commit or rollback) that finds none free gets an
        /// extra connection of its own instead of waiting.
        public var maxConnections: Int
        /// Low-speed abort: a transfer that moves fewer than ``lowSpeedLimit`` bytes per second for
        /// ``lowSpeedTime`` seconds in a row is aborted with `.deadlineExceeded` (a stalled stream), even
        /// within ``requestTimeout``. Default 1 byte per second. Zero or less turns the check off.
        public var lowSpeedLimit: Int
        /// The seconds a transfer may stay below ``lowSpeedLimit`` before it is aborted. Default 30; zero or
        /// less turns the check off. libcurl checks once a second, so the abort comes within about a second
        /// after this time.
        public var lowSpeedTime: Double
        /// A PEM file of CA certificates to verify `https` servers against, **instead of** the system trust
        /// store (`/etc/ssl/certs`); for a private CA or a TLS-inspecting corporate proxy. `nil` (default)
        /// uses the system store. Verification itself can not be turned off.
        public var caBundlePath: String?
        /// The proxy to use: `nil` (default) honours the proxy environment variables (see ``CurlTransport``);
        /// `""` uses no proxy at all, ignoring the environment; anything else is the proxy URL, e.g.
        /// `http://proxy.internal:3128` (credentials in it are never shown in errors).
        public var proxy: String?
        /// How a connection that died without a word is noticed and left: PINGs and a bounded age for gRPC
        /// connections, TCP keepalive and a bounded age for REST ones (``CurlTransport/ConnectionHealth``).
        public var health: ConnectionHealth

        /// Creates a configuration; every parameter has the documented default.
        /// - Parameters:
        ///   - connectTimeout: connection timeout in seconds.
        ///   - requestTimeout: whole-request timeout in seconds.
        ///   - maxResponseBytes: body size cap in bytes.
        ///   - userAgent: the `User-Agent` header value; `nil` (default) for the package's name and version,
        ///     `firestore-feed-swift/0.1.0`.
        ///   - maxConnections: the connection pool size.
        ///   - lowSpeedLimit: bytes per second below which a transfer counts as stalled.
        ///   - lowSpeedTime: seconds a transfer may stay stalled.
        ///   - caBundlePath: a PEM CA bundle replacing the system trust store.
        ///   - proxy: the proxy URL, `""` for none, `nil` for the environment's.
        ///   - health: PINGs, keepalive and connection age (``CurlTransport/ConnectionHealth``).
        public init(
            connectTimeout: Double = 10,
            requestTimeout: Double = 60,
            maxResponseBytes: Int = 256 * 1024 * 1024,
            userAgent: String? = nil,
            maxConnections: Int = 8,
            lowSpeedLimit: Int = 1,
            lowSpeedTime: Double = 30,
            caBundlePath: String? = nil,
            proxy: String? = nil,
            health: ConnectionHealth = .init()
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maxResponseBytes = maxResponseBytes
            self.userAgent = userAgent ?? FirestoreFeedPackage.userAgent
            self.maxConnections = maxConnections
            self.lowSpeedLimit = lowSpeedLimit
            self.lowSpeedTime = lowSpeedTime
            self.caBundlePath = caBundlePath
            self.proxy = proxy
            self.health = health
        }
    }

    /// The limits and identification this transport uses.
    public let configuration: Configuration
    let pool: CurlHandlePool
    let connectionsOpened = Atomic<Int>(0)

    /// Creates a transport. No connection is opened until the first request.
    /// - Parameter configuration: timeouts (seconds), body size cap (bytes), pool size, TLS trust, proxy and
    ///   user agent.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        pool = CurlHandlePool(capacity: max(configuration.maxConnections, 1))
    }

    /// The version of the libcurl this process uses, e.g. `7.88.1`.
    package static var libcurlVersion: String {
        CurlRuntime.version
    }

    /// Sends `request` and returns the complete response, whatever its HTTP status (4xx and 5xx included).
    ///
    /// The request's headers are sent as given; the transport adds `User-Agent` (unless set), an
    /// `Accept-Encoding` listing the encodings libcurl can decode, and suppresses `Expect: 100-continue`.
    /// `POST`, `PUT` and `PATCH` always carry a body (empty when ``HTTPRequest/body`` is `nil`).
    ///
    /// - Throws: ``FirestoreError`` when no complete response was received, with code:
    ///   - `.unavailable`: connection refused, DNS failure, connection reset or closed early, TLS handshake
    ///     failure;
    ///   - `.deadlineExceeded`: ``Configuration/connectTimeout`` or ``Configuration/requestTimeout`` passed;
    ///   - `.cancelled`: the calling task was cancelled (checked before sending and while waiting for a free
    ///     connection, then by libcurl's progress callback, which runs at least about once a second, so a
    ///     stalled transfer stops within ~1 s);
    ///   - `.deadlineExceeded`: the transfer stalled below ``Configuration/lowSpeedLimit`` for
    ///     ``Configuration/lowSpeedTime``;
    ///   - `.failedPrecondition`: the `https` server's certificate could not be verified (unknown CA, wrong
    ///     host name, expired), or ``Configuration/caBundlePath`` could not be read; retrying cannot help;
    ///   - `.resourceExhausted`: the body exceeded ``Configuration/maxResponseBytes``;
    ///   - `.invalidArgument`: a header contains CR, LF or NUL, or the URL is malformed or not http(s);
    ///   - `.unknown`: any other libcurl failure.
    ///
    ///   The message names the URL as `scheme://host:port/path` (query omitted) and libcurl's reason.
    public func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        if Task.isCancelled {
            throw CurlErrorMapping.cancelled(url: request.url)
        }
        let cancellation = CurlCancellation()
        let transfer = try CurlTransfer(request: request, configuration: configuration, cancellation: cancellation)
        let handle = try await pool.checkOut(url: request.url, priority: request.priority)
        let pool = self.pool
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CurlTransferOutcome, Never>) in
                let started = TransferThread.start(name: "CurlTransport") {
                    let outcome = transfer.run(on: handle)
                    pool.checkIn(handle)
                    continuation.resume(returning: outcome)
                }
                if !started {
                    pool.checkIn(handle)
                    let error = FirestoreError(
                        code: .unavailable, message: "could not start a transfer thread: \(Redaction.url(request.url))")
                    continuation.resume(returning: CurlTransferOutcome(result: .failure(error), connectionsOpened: 0))
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        connectionsOpened.add(outcome.connectionsOpened, ordering: .relaxed)
        return try outcome.result.get()
    }

    /// How many new connections this transport's transfers have opened so far (the sum of
    /// `CURLINFO_NUM_CONNECTS`); a request that reuses a kept-alive connection adds 0. For monitoring,
    /// benchmarks and tests.
    package var openedConnectionCount: Int {
        connectionsOpened.load(ordering: .relaxed)
    }

    /// Closes the kept-alive connections no transfer is using (``Firestore/shutdown()``); later requests open new
    /// ones. Transfers under way are not touched.
    package func closeIdleConnections() {
        pool.closeIdle()
    }

    /// How many easy handles the pool has created; never more than ``Configuration/maxConnections``. For tests.
    var createdHandleCount: Int {
        pool.createdCount
    }
}
