import FirestoreWire

/// Opens Listen calls (``ListenCall``) to one server for one client: a ``GRPCChannel`` (one HTTP/2 connection
/// shared by its calls), or FirestoreTesting's recording and replaying channels. A Listen feed keeps one
/// channel per client and opens a new call on it whenever the stream is (re)opened.
package protocol ListenChannel: Sendable {
    /// Opens a Listen call; nothing is sent until the first ``ListenCall/send(_:)``.
    /// - Parameter metadata: the call's request metadata (``Firestore/grpcMetadata()``: authorization and the
    ///   routing headers), fetched anew for every call because tokens expire.
    /// - Throws: ``FirestoreError`` when the call cannot be set up; a failure of the call itself arrives through
    ///   its ``ListenCall/responses``.
    func makeListenCall(metadata: [HTTPHeader]) throws(FirestoreError) -> any ListenCall

    /// How many of this channel's calls are running now.
    var activeCallCount: Int { get }

    /// Ends every call with `.cancelled` and returns once the channel's threads and connections are gone; later
    /// calls end at once the same way. Nothing for a channel without threads or connections of its own.
    func close() async
}

extension ListenChannel {
    /// Nothing to close: a recording or replaying channel holds no thread or connection of its own.
    package func close() async {}
}

/// An ``HTTPTransport`` that can also carry a client's Listen stream. The Listen feed asks the client's
/// transport for a channel; a transport that does not adopt this protocol, or whose
/// ``makeListenChannel(for:)`` throws, makes the feed poll instead, with the error's message as the reason
/// (`FeedEvent.fellBackToPolling(reason:)`).
///
/// ``CurlTransport`` adopts it with a ``GRPCChannel`` (gRPC over HTTP/2 to the client's server, with the
/// transport's TLS and proxy settings); FirestoreTesting's `RecordingTransport` and `ReplayTransport` record
/// and replay Listen calls in cassettes.
package protocol ListenTransport: HTTPTransport {
    /// A channel for the Listen calls of `firestore` (which names the server, ``Firestore/grpcBaseURL``).
    /// - Throws: ``FirestoreError`` saying why this transport cannot carry a Listen stream for `firestore`.
    func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel
}
