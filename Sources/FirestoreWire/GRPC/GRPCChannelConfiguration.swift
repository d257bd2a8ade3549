extension GRPCChannel {
    /// Connection, security and buffering settings for every call of a ``GRPCChannel``.
    ///
    /// TLS and proxies follow ``CurlTransport``: an `https` server's certificate chain and host name are
    /// always verified (TLS 1.2 or newer) against the system trust store or ``caBundlePath``; by default
    /// libcurl's proxy environment variables apply (`https_proxy`, `all_proxy`, `no_proxy`, ...; an `http://`
    /// base URL uses `http_proxy`). Through a proxy, the connection is always a `CONNECT` tunnel, so the HTTP/2
    /// bytes reach the server untouched (``HTTP2Socket``).
    package struct Configuration: Sendable, Hashable {
        /// Longest time to establish a connection (TCP and TLS handshakes), in seconds. Default 10. Zero or less
        /// means libcurl's default (300 s). There is no overall timeout: a stream may stay open for hours.
        package var connectTimeout: Double
        /// The `user-agent` header value. Default `FirestoreFeedPackage.userAgent`.
        package var userAgent: String
        /// A PEM file of CA certificates replacing the system trust store, or `nil` (default).
        package var caBundlePath: String?
        /// The proxy: `nil` (default) honours the environment, `""` uses none, anything else is the proxy URL.
        package var proxy: String?
        /// Per call, how many bytes of received messages (plus 5 per message) may wait unconsumed in
        /// ``GRPCStreamingCall/responses`` before the stream's HTTP/2 window stops the server. Default 4 MiB
        /// (4,194,304 bytes). One message is always delivered whole, however large.
        package var maxBufferedResponseBytes: Int
        /// The largest message accepted or sent, in bytes. Default ``GRPCFrame/defaultMaxMessageByteCount``
        /// (64 MiB).
        package var maxMessageByteCount: Int
        /// How a connection that died without a word is noticed and left (``CurlTransport/ConnectionHealth``).
        package var health: CurlTransport.ConnectionHealth

        /// Creates a configuration; every parameter has the documented default.
        package init(
            connectTimeout: Double = 10,
            userAgent: String = FirestoreFeedPackage.userAgent,
            caBundlePath: String? = nil,
            proxy: String? = nil,
            maxBufferedResponseBytes: Int = 4 * 1024 * 1024,
            maxMessageByteCount: Int = GRPCFrame.defaultMaxMessageByteCount,
            health: CurlTransport.ConnectionHealth = .init()
        ) {
            self.connectTimeout = connectTimeout
            self.userAgent = userAgent
            self.caBundlePath = caBundlePath
            self.proxy = proxy
            self.maxBufferedResponseBytes = maxBufferedResponseBytes
            self.maxMessageByteCount = maxMessageByteCount
            self.health = health
        }

        /// The connect timeout, user agent, CA bundle, proxy and connection health of a ``CurlTransport``
        /// configuration, so the stream and the REST requests of one client reach the server the same way.
        package init(_ transport: CurlTransport.Configuration) {
            self.init(
                connectTimeout: transport.connectTimeout, userAgent: transport.userAgent,
                caBundlePath: transport.caBundlePath, proxy: transport.proxy, health: transport.health)
        }
    }
}
