/// The wire protocol of a ``PubSubPublisher``'s publish requests: Pub/Sub's REST API (`projects.topics.publish`,
/// JSON over HTTP) or its gRPC API (`google.pubsub.v1.Publisher/Publish`, protobuf over HTTP/2), the same method
/// defined twice (`google/pubsub/v1/pubsub.proto`, googleapis/googleapis). Google's own client libraries publish over
/// gRPC.
///
/// Both mean the same: the same messages, requests (one ordering key each), retries (``PubSubRetrySettings``),
/// credentials and errors (`FirestoreError` with the server's code and message). Creating topics and subscriptions
/// goes over REST under either choice.
public enum PubSubProtocol: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JSON over HTTP with the publisher's `HTTPTransport` (a pool of connections): works through any HTTP/1.1 proxy
    /// and with every transport.
    case rest
    /// Protobuf over gRPC on one HTTP/2 connection of the package's own gRPC channel (h2c to the emulator, TLS with
    /// ALPN `h2` to production), whatever the publisher's `HTTPTransport` (its connect timeout, CA bundle and proxy
    /// are used when it is a `CurlTransport`).
    case grpc

    /// `rest` or `grpc`.
    public var description: String { rawValue }
}
