/// The wire protocol of a ``PubSubPublisher``'s publish requests: Pub/Sub's REST API (`projects.topics.publish`,
/// JSON over HTTP) or its gRPC API (`google.pubsub.v1.Publisher/Publish`, protobuf over HTTP/2), the same method
/// defined twice (`google/pubsub/v1/pubsub.proto`, googleapis/googleapis). Google's own client libraries publish over
/// gRPC, which is about three times as fast as REST against the emulator (the `pubsub-publish` benchmark,
/// <doc:PublishingToPubSub>); a publisher uses ``automatic`` unless told otherwise.
///
/// All mean the same: the same messages, requests (one ordering key each), retries (``PubSubRetrySettings``),
/// credentials and errors (`FirestoreError` with the server's code and message). Creating topics and subscriptions
/// goes over REST under every choice.
public enum PubSubProtocol: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JSON over HTTP with the publisher's `HTTPTransport` (a pool of connections): works through any HTTP/1.1 proxy
    /// and with every transport.
    case rest
    /// Protobuf over gRPC on one HTTP/2 connection of the package's own gRPC channel (h2c to the emulator, TLS with
    /// ALPN `h2` to production), whatever the publisher's `HTTPTransport` (its connect timeout, CA bundle, proxy and
    /// request timeout, as each call's deadline, are used when it is a `CurlTransport`).
    case grpc
    /// ``grpc`` when the publisher's transport is a `CurlTransport` (``rest`` on any other: a test double keeps every
    /// request), and ``rest`` after a gRPC publish failed for want of HTTP/2 (TLS without ALPN `h2`, a proxy refusing
    /// the `CONNECT` tunnel, an HTTP/1.1 answer, a connection closed before any HTTP/2 settings) or was answered
    /// `UNIMPLEMENTED`: that request is sent again over REST at once (it reached no Pub/Sub service), and the
    /// publisher and its copies keep to REST for the next 5 minutes before trying gRPC again. As
    /// `FirestoreProtocol.automatic` chooses for Firestore's calls.
    case automatic

    /// `rest`, `grpc` or `automatic`.
    public var description: String { rawValue }
}
