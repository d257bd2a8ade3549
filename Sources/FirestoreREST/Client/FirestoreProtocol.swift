import FirestoreWire

/// The wire protocol of a client's requests (every call but the Listen stream, which is gRPC whatever this says):
/// Firestore's REST API (JSON over HTTP/1.1 or HTTP/2) or its gRPC API (protobuf over HTTP/2), the same service
/// defined twice (`google/firestore/v1/firestore.proto`, googleapis/googleapis; the REST reference at
/// <https://cloud.google.com/firestore/docs/reference/rest>). Google's own server SDKs talk gRPC and keep REST as
/// the fallback (Node's `preferRest`).
///
/// The same request means the same thing over both: the same retry table (``RetryPolicy``), credentials, deadline
/// (the transport's request timeout; over gRPC also the `grpc-timeout` header), errors (``FirestoreError`` with the
/// server's code and message, the index link of a `failed-precondition` in ``FirestoreError/indexURL``), results and
/// billed-reads statistics. Methods without a gRPC implementation yet go over REST under every choice.
public enum FirestoreProtocol: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JSON over HTTP: works through any HTTP/1.1 proxy and with every ``HTTPTransport``.
    case rest
    /// Protobuf over gRPC (HTTP/2: h2c to the emulator, TLS with ALPN `h2` to production). A transport that cannot
    /// carry gRPC (a test double, a replayed cassette without gRPC calls) fails each call with
    /// `.failedPrecondition`.
    case grpc
    /// gRPC where the transport and the network can carry HTTP/2, REST otherwise: a call refused for want of HTTP/2
    /// (TLS without ALPN `h2`, a proxy refusing the `CONNECT` tunnel, an HTTP/1.1 answer, `426`, `505`,
    /// `HTTP_1_1_REQUIRED`, a connection closed before
    /// any HTTP/2 settings), or answered `unimplemented` (a server or proxy without the gRPC method), is sent again
    /// over REST at once, and the client's later calls use REST for the next 5 minutes before trying gRPC again.
    case automatic

    /// `rest`, `grpc` or `automatic`.
    public var description: String { rawValue }
}
