extension CassetteHTTPServer {
    /// What one ``CassetteHTTPServer`` lets its clients use: it is a testing tool, but it listens on a port. With the
    /// defaults a server holds at most 32 threads for clients and about 32 × 10 MiB of request bodies.
    ///
    /// `firestore-feed serve-cassette` sets them with `--max-connections`, `--max-body-bytes` and `--idle-timeout`.
    public struct Limits: Sendable, Hashable {
        /// The most connections served at once (each on a thread of its own). One more is answered
        /// `503 Service Unavailable` and closed at once, without a thread. Default 32.
        public var maxConnections: Int
        /// The largest request head (request line and headers), in bytes; a larger one is answered
        /// `431 Request Header Fields Too Large`. Default 64 KiB.
        public var maxHeadBytes: Int
        /// The largest request body, in bytes (by `Content-Length` or chunk by chunk); a larger one is answered
        /// `413 Content Too Large` before it is read. Default 10 MiB, Firestore's own limit on an API request.
        public var maxBodyBytes: Int
        /// How long a connection may send nothing: between requests it is then closed; inside a request it gets
        /// `408 Request Timeout`. Also how long a response may wait for a client that does not read. Default 30 s.
        public var idleTimeout: Duration

        /// Limits with the given values (see each property for its default).
        public init(
            maxConnections: Int = 32, maxHeadBytes: Int = 64 * 1024, maxBodyBytes: Int = 10 * 1024 * 1024,
            idleTimeout: Duration = .seconds(30)
        ) {
            self.maxConnections = maxConnections
            self.maxHeadBytes = maxHeadBytes
            self.maxBodyBytes = maxBodyBytes
            self.idleTimeout = idleTimeout
        }

        /// The defaults: 32 connections, 64 KiB heads, 10 MiB bodies, 30 s of silence.
        public static let standard = Limits()

        /// ``idleTimeout`` in whole milliseconds (at least 1), for `poll` and `SO_SNDTIMEO`.
        package var idleMilliseconds: Int {
            let (seconds, attoseconds) = idleTimeout.components
            return max(1, Int(clamping: seconds) &* 1000 &+ Int(attoseconds / 1_000_000_000_000_000))
        }
    }
}
