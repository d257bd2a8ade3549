import Synchronization

/// A gRPC-over-HTTP/2 client for one server (`http://host:port` for the emulator, `https://host` for
/// production): calls made on it run on a thread of its own (``HTTP2Loop``) that speaks HTTP/2 with nghttp2 over a
/// connection libcurl sets up (``HTTP2Socket``), and concurrent calls share one HTTP/2 connection as separate
/// streams.
///
/// ```swift
/// let channel = try GRPCChannel(baseURL: "http://127.0.0.1:8080")
/// let call = try channel.makeCall(method: FirestoreGRPCMethod.listen, metadata: try await db.grpcMetadata())
/// try call.send(listenRequest)            // serialized ListenRequest bytes
/// for try await response in call.responses { ... }   // serialized ListenResponse bytes
/// ```
///
/// Wire rules from gRPC's `PROTOCOL-HTTP2.md` (grpc/grpc): `POST {base}{method}`, `content-type:
/// application/grpc`, `te: trailers`, length-prefixed messages (``GRPCFrame``), status in `grpc-status` /
/// `grpc-message` trailers. Cleartext uses HTTP/2 with prior knowledge (no upgrade), `https` negotiates h2
/// through ALPN. A call ends as soon as the server ends its half of the stream, whether or not the client is still
/// sending (``HTTP2Connection``).
///
/// Lifetime: each call keeps its channel alive; when the channel and all its calls are gone, the thread ends
/// and the connection closes. ``shutDown()`` ends every call at once. Safe to share between tasks and threads.
package final class GRPCChannel: Sendable {
    /// `scheme://host[:port]`, without a trailing slash.
    package let baseURL: String
    /// The settings every call uses.
    package let configuration: Configuration
    let loop: HTTP2Loop
    /// `host[:port]` of ``baseURL``: the calls' `:authority`.
    let authority: String
    /// Whether ``baseURL`` is `https`.
    let isTLS: Bool
    private let nextCallID = Atomic<Int>(0)

    /// Creates a channel and starts its thread; no connection is opened before the first call.
    /// - Parameters:
    ///   - baseURL: `http://host:port` or `https://host[:port]`; a trailing `/` is dropped.
    ///   - configuration: timeouts (seconds), TLS trust, proxy, buffer limits (bytes).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a URL that is not `http` or `https` or has a path;
    ///   `.unknown` when libcurl cannot be initialised.
    package init(baseURL: String, configuration: Configuration = .init()) throws(FirestoreError) {
        var root = baseURL
        while root.hasSuffix("/") { root.removeLast() }
        let lowered = root.lowercased()
        guard let separator = lowered.firstRange(of: "://"),
            ["http", "https"].contains(lowered[..<separator.lowerBound]),
            !root[separator.upperBound...].isEmpty, !root[separator.upperBound...].contains("/")
        else {
            throw .invalidArgument("invalid gRPC base URL \"\(baseURL)\": expected http://host:port or https://host")
        }
        self.baseURL = root
        self.configuration = configuration
        authority = String(root[separator.upperBound...])
        isTLS = lowered.hasPrefix("https")
        loop = try HTTP2Loop(
            baseURL: root, configuration: configuration, name: "GRPCChannel " + CurlErrorMapping.redacted(root))
    }

    deinit {
        loop.stop()
    }

    /// Opens a call: the request goes out at once (headers first, then each message given to
    /// ``GRPCStreamingCall/send(_:)``); the request stream stays open until ``GRPCStreamingCall/closeSend()``.
    ///
    /// - Parameters:
    ///   - method: the method path, e.g. ``FirestoreGRPCMethod/listen`` (`/google.firestore.v1.Firestore/Listen`).
    ///   - metadata: request headers: authorization and routing (``Firestore/grpcMetadata()``), sent with
    ///     lower-case names.
    /// - Returns: the running call. Errors of the call itself arrive through its response stream.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a method not starting with `/` or a header with
    ///   CR, LF or NUL; `.unknown` when libcurl refuses to set the call up.
    package func makeCall(method: String, metadata: [HTTPHeader] = []) throws(FirestoreError) -> GRPCStreamingCall {
        guard method.hasPrefix("/"), !method.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalidArgument("invalid gRPC method path \"\(method)\": expected /package.Service/Method")
        }
        let id = nextCallID.add(1, ordering: .relaxed).newValue
        return try GRPCStreamingCall(channel: self, id: id, method: method, metadata: metadata)
    }

    /// Ends every running call with `.cancelled` and stops the thread; later calls end at once the same way.
    package func shutDown() {
        loop.stop()
    }

    /// ``shutDown()``, then returns once the channel's thread and its connect attempts have finished, its
    /// connections and wake-up pipe closed (``Firestore/shutdown()``).
    package func close() async {
        loop.stop()
        await loop.finished()
    }

    /// How many new connections this channel's calls have opened so far (the sum of `CURLINFO_NUM_CONNECTS` of
    /// the calls that ended). Calls multiplexed onto an existing HTTP/2 connection add 0.
    package var openedConnectionCount: Int { loop.openedConnectionCount }

    /// How many calls are running on the channel's thread right now.
    package var activeCallCount: Int { loop.callCount }
}
