extension CurlTransport {
    /// How the transport notices a connection that died without a word (a NAT gateway or load balancer that dropped
    /// it while idle, a proxy that black-holes it, a server that hangs) and stops using it, in the spirit of gRPC
    /// keepalive (gRPC's `A8-client-side-keepalive.md`): without it, every later call on such a connection would wait
    /// out its whole deadline, for ever.
    ///
    /// gRPC connections (HTTP/2, the gRPC channel under ``Firestore/using(protocol:)`` `.grpc`):
    /// - A call that has sent its whole request and has heard nothing for ``pingAfterSilence`` sends an HTTP/2 PING
    ///   on its connection; a connection reused after ``pingAfterIdle`` without a byte from the server is pinged
    ///   as the call goes out; a call that passed its deadline makes its connection suspect: the next calls wait
    ///   for the answer to a PING before they use it.
    /// - A PING unanswered for ``pingTimeout`` means the connection is dead: every call on it ends at once with
    ///   `.unavailable` (retried on a new connection by the retry table, like any `.unavailable`), and no new call
    ///   goes to it. A `GOAWAY` with an error, or a protocol error nghttp2 reports (it then sends a `GOAWAY` itself),
    ///   ends the connection's calls the same way, naming the error.
    /// - A connection older than ``maxConnectionAge`` takes no new calls (its running calls go on; the next call
    ///   opens a new connection).
    /// - Pings are spaced as gRPC servers require (grpc-java's `permitKeepAliveTime`, 5 minutes by default): a
    ///   silent call's PING is sent only when the server sent a frame since the last one, or 5 minutes passed.
    ///
    /// REST connections (libcurl): TCP keepalive after ``tcpKeepaliveIdle``, the low-speed abort
    /// (``Configuration/lowSpeedLimit``), and ``maxConnectionAge`` (`CURLOPT_MAXLIFETIME_CONN`).
    ///
    /// Every time is in seconds; the defaults suit production Firestore and the emulator alike.
    public struct ConnectionHealth: Sendable, Hashable {
        /// Seconds a gRPC call that sent its whole request may go without a byte from the server before its
        /// connection is pinged. Default 5 (at least 0.1).
        public var pingAfterSilence: Double
        /// Seconds a PING may go unanswered before the connection counts as dead. Default 10 (at least 0.1).
        public var pingTimeout: Double
        /// Seconds without a byte from the server after which a connection is pinged when a new call goes out on
        /// it. Default 30 (at least 0.1).
        public var pingAfterIdle: Double
        /// Seconds after which a connection takes no new calls. Default 3,600 (an hour; at least 1).
        public var maxConnectionAge: Double
        /// Seconds a TCP connection may be idle before the kernel sends keepalive probes (`TCP_KEEPIDLE`; probes
        /// then every 10 s). Default 30 (at least 1).
        public var tcpKeepaliveIdle: Double

        /// Creates the settings; every parameter has the documented default.
        public init(
            pingAfterSilence: Double = 5, pingTimeout: Double = 10, pingAfterIdle: Double = 30,
            maxConnectionAge: Double = 3_600, tcpKeepaliveIdle: Double = 30
        ) {
            self.pingAfterSilence = Self.bounded(pingAfterSilence, least: 0.1, otherwise: 5)
            self.pingTimeout = Self.bounded(pingTimeout, least: 0.1, otherwise: 10)
            self.pingAfterIdle = Self.bounded(pingAfterIdle, least: 0.1, otherwise: 30)
            self.maxConnectionAge = Self.bounded(maxConnectionAge, least: 1, otherwise: 3_600)
            self.tcpKeepaliveIdle = Self.bounded(tcpKeepaliveIdle, least: 1, otherwise: 30)
        }

        private static func bounded(_ seconds: Double, least: Double, otherwise: Double) -> Double {
            guard seconds.isFinite else { return seconds > 0 ? 1e9 : otherwise }
            return min(max(seconds, least), 1e9)
        }

        /// `seconds` in whole milliseconds.
        package static func milliseconds(_ seconds: Double) -> UInt64 {
            UInt64((seconds * 1_000).rounded(.up))
        }
    }
}
