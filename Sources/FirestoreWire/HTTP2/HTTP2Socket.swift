internal import CCurl
internal import COpenSSL
import Synchronization

/// A connection to a gRPC server that libcurl set up and then handed over (`CURLOPT_CONNECT_ONLY`): DNS, TCP, a
/// proxy's `CONNECT` tunnel and the TLS handshake with ALPN are libcurl's (with every check of ``CurlTransport``:
/// certificate chain and host name, TLS 1.2 or newer, the CA bundle, the proxy environment; ALPN offers `h2`); the
/// bytes are then
/// sent and received with `curl_easy_send` and `curl_easy_recv`, which go through libcurl's TLS layer.
///
/// Made on a thread of its own (``connect(baseURL:configuration:cancelled:)`` blocks), then used by the HTTP/2
/// loop's thread only: libcurl-thread(3) allows a handle to move between threads, never to be used by two at once.
final class HTTP2Socket: @unchecked Sendable {
    /// The outcome of one ``send(_:)`` or ``receive(into:)``.
    enum IO {
        /// This many bytes went out or came in (never 0 for a receive: see ``closed``).
        case done(Int)
        /// Nothing can move now; poll the descriptor.
        case wouldBlock
        /// The peer closed the connection (a receive of 0 bytes).
        case closed
        /// The connection failed; libcurl's reason.
        case failed(String)
    }

    private let easy: CurlEasyHandle
    /// The socket, for `poll(2)`.
    let descriptor: Int32
    /// Whether the connection is TLS (an `https` server), whose handshake offered ALPN `h2` only.
    let isTLS: Bool

    private init(easy: CurlEasyHandle, descriptor: Int32, isTLS: Bool) {
        self.easy = easy
        self.descriptor = descriptor
        self.isTLS = isTLS
    }

    /// Connects to `baseURL` (`http://host:port` or `https://host[:port]`), blocking the calling thread for at most
    /// the configuration's connect timeout.
    ///
    /// - Parameters:
    ///   - configuration: connect timeout (seconds), user agent (sent to a proxy), CA bundle and proxy.
    ///   - cancelled: polled while connecting; returning `true` aborts with `.cancelled`.
    /// - Returns: the socket, or the error: `.unavailable` (refused, unresolved, reset, TLS handshake failed),
    ///   `.deadlineExceeded` (connect timeout), `.failedPrecondition` (a certificate that does not verify, an
    ///   unreadable CA bundle), `.cancelled`, `.unknown` (libcurl refused an option).
    static func connect(
        baseURL: String, configuration: GRPCChannel.Configuration, cancelled: @escaping @Sendable () -> Bool
    ) -> Result<HTTP2Socket, FirestoreError> {
        do throws(FirestoreError) {
            let easy = try CurlEasyHandle()
            try easy.reset()
            let isTLS = baseURL.lowercased().hasPrefix("https://")
            try easy.set(CURLOPT_NOSIGNAL, 1)
            try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
            try easy.set(CURLOPT_URL, baseURL + "/")
            try easy.set(CURLOPT_CONNECT_ONLY, 1)
            // libcurl 7.88 puts its own HTTP/2 layer on a connection whose ALPN agreed on h2, even a CONNECT_ONLY one,
            // and then curl_easy_send cannot carry our frames. So libcurl is told HTTP/1.1 with ALPN off, and the TLS
            // context offers h2 by itself: the server agrees to h2 or answers the preface as HTTP/1.1 would, which the
            // connection notices (HTTP2Connection).
            try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
            try easy.set(CURLOPT_SSL_ENABLE_ALPN, 0)
            if isTLS {
                let code = ccurl_easy_setopt_ssl_ctx_callback(easy.raw, CURLOPT_SSL_CTX_FUNCTION) { _, context, _ in
                    guard let context else { return CURLE_SSL_CERTPROBLEM }
                    return copenssl_ctx_offer_h2_only(context) == 0 ? CURLE_OK : CURLE_OUT_OF_MEMORY
                }
                guard code == CURLE_OK else {
                    throw FirestoreError(code: .unknown, message: "curl_easy_setopt(SSL_CTX_FUNCTION) failed")
                }
            }
            try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
            try easy.set(CURLOPT_TCP_KEEPIDLE, CurlTransfer.wholeSeconds(configuration.health.tcpKeepaliveIdle))
            try easy.set(CURLOPT_TCP_KEEPINTVL, 10)
            try easy.set(CURLOPT_TCP_NODELAY, 1)
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, CurlTransfer.milliseconds(configuration.connectTimeout))
            try easy.set(CURLOPT_USERAGENT, configuration.userAgent)
            try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
            try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
            try easy.set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
            if let caBundlePath = configuration.caBundlePath {
                try easy.set(CURLOPT_CAINFO, caBundlePath)
                try easy.set(CURLOPT_CAPATH, pointer: nil)
            }
            if let proxy = configuration.proxy {
                try easy.set(CURLOPT_PROXY, proxy)
            }
            // Through a proxy, always a CONNECT tunnel: HTTP/2 bytes must reach the server untouched.
            try easy.set(CURLOPT_HTTPPROXYTUNNEL, 1)
            let box = Unmanaged.passRetained(CancelBox(cancelled))
            defer { box.release() }
            try easy.set(CURLOPT_NOPROGRESS, 0)
            try easy.set(CURLOPT_XFERINFODATA, pointer: box.toOpaque())
            try easy.set(progressFunction: { context, _, _, _, _ in
                guard let context else { return 0 }
                return Unmanaged<CancelBox>.fromOpaque(context).takeUnretainedValue().cancelled() ? 1 : 0
            })
            let code = easy.perform()
            // The progress callback and its box are not used after the connect.
            try easy.set(CURLOPT_NOPROGRESS, 1)
            guard code == CURLE_OK else {
                if code == CURLE_ABORTED_BY_CALLBACK {
                    return .failure(
                        FirestoreError(
                            code: .cancelled, message: "gRPC connection to \(Redaction.url(baseURL)) cancelled"))
                }
                let detail = easy.errorMessage
                if code == CURLE_SSL_CONNECT_ERROR, detail.contains("no application protocol") {
                    // RFC 7301 §3.2: the server supports none of the offered protocols, here h2.
                    var error = FirestoreError(
                        code: .unavailable,
                        message:
                            "the server at \(Redaction.url(baseURL)) refused HTTP/2 in the TLS handshake (ALPN h2: "
                            + "\(detail)): it, or a proxy in the way, does not speak HTTP/2, which gRPC needs")
                    error.lacksHTTP2 = true
                    return .failure(error)
                }
                var error = CurlErrorMapping.error(
                    for: code, detail: detail, url: baseURL,
                    collector: CurlResponseCollector(maxBodyBytes: .max, cancellation: CurlCancellation()),
                    configuration: CurlTransport.Configuration(
                        connectTimeout: configuration.connectTimeout, requestTimeout: 0,
                        caBundlePath: configuration.caBundlePath, proxy: configuration.proxy))
                // A proxy that refuses the CONNECT tunnel (an HTTP/1.1-only forward proxy answers 501, 405 or 403)
                // cannot carry HTTP/2 to the server; REST may still get through it.
                error.lacksHTTP2 = detail.contains("CONNECT tunnel failed")
                return .failure(error)
            }
            let descriptor = Int32(ccurl_easy_active_socket(easy.raw))
            guard descriptor >= 0 else {
                return .failure(
                    FirestoreError(code: .unknown, message: "libcurl gave no socket for \(Redaction.url(baseURL))"))
            }
            return .success(HTTP2Socket(easy: easy, descriptor: descriptor, isTLS: isTLS))
        } catch {
            return .failure(error)
        }
    }

    /// Sends what it can of `bytes` without blocking.
    func send(_ bytes: UnsafeRawBufferPointer) -> IO {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .done(0) }
        var sent = 0
        let code = curl_easy_send(easy.raw, base, bytes.count, &sent)
        switch code {
        case CURLE_OK: return .done(sent)
        case CURLE_AGAIN: return sent > 0 ? .done(sent) : .wouldBlock
        default: return .failed(Self.describe(code, easy))
        }
    }

    /// Receives what is there, up to `buffer.count` bytes, without blocking.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> IO {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .wouldBlock }
        var received = 0
        let code = curl_easy_recv(easy.raw, base, buffer.count, &received)
        switch code {
        case CURLE_OK: return received == 0 ? .closed : .done(received)
        case CURLE_AGAIN: return .wouldBlock
        default: return .failed(Self.describe(code, easy))
        }
    }

    private static func describe(_ code: CURLcode, _ easy: CurlEasyHandle) -> String {
        let detail = easy.errorMessage
        return detail.isEmpty ? CurlRuntime.describe(code) : detail
    }

    /// Holds the cancellation check for the progress callback.
    private final class CancelBox {
        let cancelled: @Sendable () -> Bool
        init(_ cancelled: @escaping @Sendable () -> Bool) { self.cancelled = cancelled }
    }
}
