import Foundation
import Synchronization

/// An ``HTTPTransport`` built directly on the system libcurl (HTTP/1.1, and HTTP/2 over TLS when the server
/// offers it).
///
/// - Connections are kept alive and reused: finished transfers return their libcurl easy handle (which
///   caches its open connections) to a small pool of idle handles, and the next request takes the most
///   recently used one. Each handle is used by one transfer at a time.
/// - The blocking `curl_easy_perform` runs on a thread of its own (one short-lived thread per transfer), never
///   on the Swift cooperative thread pool or a shared Dispatch queue, so slow transfers cannot starve other
///   work or each other; the calling task is suspended until the transfer ends.
/// - Response bodies compressed with any encoding libcurl supports (gzip, deflate, br, zstd) are requested
///   and arrive decoded in ``HTTPResponse/body``. The response headers are passed on as received, so
///   `Content-Encoding` and `Content-Length` describe the bytes on the wire, not the decoded body.
/// - Every HTTP response is returned, whatever its status; see ``send(_:)`` for what is thrown. Redirects
///   are not followed (a 3xx is returned like any other response).
///
/// Safe to share between tasks and threads; concurrent requests each use their own handle and connection.
public final class CurlTransport: HTTPTransport {
    /// Limits and identification used for every request of a ``CurlTransport``.
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
        /// The `User-Agent` header value sent unless the request sets its own. Default
        /// `firestore-feed-swift/0.1`.
        public var userAgent: String

        /// Creates a configuration; every parameter has the documented default.
        /// - Parameters:
        ///   - connectTimeout: connection timeout in seconds.
        ///   - requestTimeout: whole-request timeout in seconds.
        ///   - maxResponseBytes: body size cap in bytes.
        ///   - userAgent: the `User-Agent` header value.
        public init(
            connectTimeout: Double = 10,
            requestTimeout: Double = 60,
            maxResponseBytes: Int = 256 * 1024 * 1024,
            userAgent: String = "firestore-feed-swift/0.1"
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maxResponseBytes = maxResponseBytes
            self.userAgent = userAgent
        }
    }

    /// The limits and identification this transport uses.
    public let configuration: Configuration
    private let pool: CurlHandlePool
    private let connectionsOpened = Atomic<Int>(0)

    /// Creates a transport. No connection is opened until the first request.
    /// - Parameter configuration: timeouts (seconds), body size cap (bytes) and user agent.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        pool = CurlHandlePool(capacity: Self.idleHandleCapacity)
    }

    /// How many idle easy handles (each with its kept-alive connections) the pool keeps between requests.
    static let idleHandleCapacity = 8

    /// The version of the libcurl this process uses, e.g. `7.88.1`.
    public static var libcurlVersion: String {
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
    ///   - `.cancelled`: the calling task was cancelled (checked before sending, then by libcurl's progress
    ///     callback, which runs at least about once a second, so a stalled transfer stops within ~1 s);
    ///   - `.resourceExhausted`: the body exceeded ``Configuration/maxResponseBytes``;
    ///   - `.invalidArgument`: a header contains CR, LF or NUL, or the URL is malformed or not http(s);
    ///   - `.unknown`: any other libcurl failure.
    ///
    ///   The message names the URL as `scheme://host:port/path` (query omitted) and libcurl's reason.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if Task.isCancelled {
            throw CurlErrorMapping.cancelled(url: request.url)
        }
        let cancellation = CurlCancellation()
        let transfer = try CurlTransfer(request: request, configuration: configuration, cancellation: cancellation)
        let handle = try pool.checkOut()
        let pool = self.pool
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CurlTransferOutcome, Never>) in
                let thread = Thread {
                    let outcome = transfer.run(on: handle)
                    pool.checkIn(handle)
                    continuation.resume(returning: outcome)
                }
                thread.name = "CurlTransport"
                thread.start()
            }
        } onCancel: {
            cancellation.cancel()
        }
        connectionsOpened.add(outcome.connectionsOpened, ordering: .relaxed)
        return try outcome.result.get()
    }

    /// How many new connections this transport's transfers have opened so far (the sum of
    /// `CURLINFO_NUM_CONNECTS`); a request that reuses a kept-alive connection adds 0. For tests.
    var openedConnectionCount: Int {
        connectionsOpened.load(ordering: .relaxed)
    }
}
