/// One gRPC call on a ``GRPCChannel``: a bidirectional stream of opaque, serialized messages (`[UInt8]`).
///
/// - Sending: ``send(_:)`` frames a message (``GRPCFrame``) and queues it; the channel's thread writes it on
///   the open HTTP/2 stream. ``closeSend()`` half-closes the request stream once everything queued is sent;
///   a server-streaming or unary call then ends with its status.
/// - Receiving: ``responses`` yields each message as it is decoded. It finishes normally on `grpc-status` 0
///   and throws a ``FirestoreError`` otherwise (see ``responses``). Receive buffering is bounded by
///   ``GRPCChannel/Configuration/maxBufferedResponseBytes`` (HTTP/2 flow control holds the server while it is full).
/// - Ending early: ``cancel()``, cancelling the task iterating ``responses``, or releasing the call and its
///   response stream ends the transfer within milliseconds (the channel's thread is woken at once) and frees
///   its handle; the stream then throws `.cancelled`.
///
/// Safe to use from any thread or task; ``responses`` must be iterated by one task only.
package final class GRPCStreamingCall: Sendable {
    /// The method path, e.g. `/google.firestore.v1.Firestore/Listen`.
    package let method: String
    /// The channel the call runs on; held so that it outlives the call.
    package let channel: GRPCChannel
    private let state: GRPCCallState
    private let stream: AsyncThrowingStream<[[UInt8]], any Error>

    init(channel: GRPCChannel, id: Int, method: String, metadata: [HTTPHeader]) throws(FirestoreError) {
        self.channel = channel
        self.method = method
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [[UInt8]].self, throwing: (any Error).self)
        let state = GRPCCallState(
            id: id, maxBufferedByteCount: channel.configuration.maxBufferedResponseBytes, continuation: continuation)
        self.state = state
        self.stream = stream
        let url = channel.baseURL + method
        let loop = channel.loop
        continuation.onTermination = { termination in
            // The consuming task was cancelled, or every reference to the stream is gone.
            if case .cancelled = termination {
                let error = Self.cancelledError(url: url)
                state.end(with: error)
                loop.cancel(id, error: error)
            }
        }
        let callStream = try GRPCStream(
            url: url, method: method, authority: channel.authority, isTLS: channel.isTLS, metadata: metadata,
            configuration: channel.configuration, state: state)
        loop.add(callStream)
    }

    deinit {
        cancel()
    }

    /// The received messages, in order, each without its 5-byte frame header.
    ///
    /// Finishes normally when the server ends the call with `grpc-status` 0. Throws a ``FirestoreError``:
    /// - the server's status mapped by ``GRPCStatus/code`` with the percent-decoded `grpc-message`
    ///   (e.g. `.unknown` for status 2, `.notFound` for 5), from the trailers or a trailers-only response;
    /// - for an HTTP status other than 200 without `grpc-status`: ``GRPCStatus/code(forHTTPStatus:)``, with
    ///   ``FirestoreError/httpStatus`` set and the body's start in the message;
    /// - `.unavailable` when the server (or a proxy) answers with anything but HTTP/2 or refuses ALPN `h2`
    ///   (``FirestoreError`` `lacksHTTP2` set), or the connection fails, resets, closes or goes away (`GOAWAY`, named
    ///   in the message), or does not answer a PING; a `RST_STREAM` as gRPC's `PROTOCOL-HTTP2.md` maps it
    ///   (``GRPCStream/resetError(code:)``); `.deadlineExceeded` when connecting takes longer than
    ///   ``GRPCChannel/Configuration/connectTimeout``; `.failedPrecondition` for a TLS certificate that does not
    ///   verify;
    /// - `.internal` for a malformed body (a compressed or oversized message, naming the byte offset, or a
    ///   body ending inside a message); `.unknown` for a 200 response that is not `application/grpc` or has no
    ///   `grpc-status`;
    /// - `.cancelled` after ``cancel()``, or when the iterating task is cancelled.
    package var responses: GRPCResponseStream {
        GRPCResponseStream(base: stream, call: self)
    }

    /// Queues `message` for sending on the open request stream and wakes the channel's thread.
    ///
    /// - Parameter message: one serialized request message (e.g. a `ListenRequest`), without framing.
    ///   Once the call has ended the message is dropped without an error: ``responses`` reports why it ended.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` after ``closeSend()`` (nothing is queued);
    ///   `.invalidArgument` for a message over ``GRPCChannel/Configuration/maxMessageByteCount``.
    /// - Complexity: O(n) in the message length (one copy into the send queue).
    package func send(_ message: [UInt8]) throws(FirestoreError) {
        let frame = try GRPCFrame.encode(message, maxMessageByteCount: channel.configuration.maxMessageByteCount)
        let wake = try state.fields.withLock { fields throws(FirestoreError) -> Bool in
            guard !fields.sendClosed else {
                throw FirestoreError(code: .failedPrecondition, message: "send after closeSend() on \(method)")
            }
            guard fields.outcome == .running else { return false }
            fields.outbound.append(contentsOf: frame)
            defer { fields.sendPaused = false }
            return fields.sendPaused
        }
        if wake {
            channel.loop.resume(state.id)
        }
    }

    /// Half-closes the call: once the queued messages are sent, the request stream ends (HTTP/2 END_STREAM),
    /// telling the server no more requests follow. Responses keep arriving until the server ends the call.
    /// Calling it again does nothing.
    package func closeSend() {
        let wake = state.fields.withLock { fields -> Bool in
            guard !fields.sendClosed else { return false }
            fields.sendClosed = true
            defer { fields.sendPaused = false }
            return fields.sendPaused
        }
        if wake {
            channel.loop.resume(state.id)
        }
    }

    /// Ends the call now: the transfer is removed from the connection (an HTTP/2 `RST_STREAM`; the connection
    /// stays open for other calls), its handle is freed, and ``responses`` throws `.cancelled` after any
    /// messages already received. Does nothing once the call has ended.
    package func cancel() {
        let error = Self.cancelledError(url: channel.baseURL + method)
        if state.end(with: error) {
            channel.loop.cancel(state.id, error: error)
        }
    }

    /// Ends the call now with `error` (e.g. `.deadlineExceeded` when the caller's deadline passed), as ``cancel()``
    /// does with `.cancelled`: the stream is reset and ``responses`` throws `error` after the messages already
    /// received. Does nothing once the call has ended.
    package func end(with error: FirestoreError) {
        if state.end(with: error) {
            channel.loop.cancel(state.id, error: error)
        }
    }

    /// The response's HTTP status and headers, once they have arrived; `nil` before (or when none arrived).
    package var responseHead: GRPCResponseHead? {
        state.fields.withLock { $0.head }
    }

    /// The trailers (`grpc-status`, `grpc-message`, ...), available once the call has ended; empty for a
    /// trailers-only response, whose status is in ``responseHead``.
    package var trailers: [HTTPHeader] {
        state.fields.withLock { $0.trailers }
    }

    /// How many new connections the call opened (`CURLINFO_NUM_CONNECTS`: 0 when it was multiplexed onto an
    /// existing connection), once it has ended; `nil` while it runs.
    package var connectionsOpened: Int? {
        state.fields.withLock { $0.connectionsOpened }
    }

    /// Whether the call has ended (with a status, an error or a cancellation).
    package var hasEnded: Bool {
        state.fields.withLock { $0.outcome != .running }
    }

    /// Called by the response stream's iterator for each message taken: frees its room in the receive buffer
    /// and unpauses the transfer when the buffer was full.
    func didConsume(_ message: [UInt8]) {
        let wake = state.fields.withLock { fields -> Bool in
            fields.bufferedByteCount -= message.count + GRPCFrame.headerByteCount
            guard fields.receivePaused, fields.bufferedByteCount < state.maxBufferedByteCount else { return false }
            fields.receivePaused = false
            return true
        }
        if wake {
            channel.loop.consumed(state.id)
        }
    }

    /// Makes the call's HTTP/2 connection take no new calls, so that the next call opens a new connection; the
    /// calls on it go on. For a caller that found the path dead (a stream that stopped answering): its next call
    /// must not join the same connection. Does nothing once the call has ended.
    package func retireConnection() {
        channel.loop.retire(state.id)
    }

    /// Sends an HTTP/2 PING on the call's connection: a connection that does not answer within 10 s is dead, and
    /// every call on it ends with `.unavailable` naming the PING. Does nothing when a PING is already out or the
    /// call has ended.
    package func pingConnection() {
        channel.loop.ping(state.id)
    }

    /// Whether the call ended with `grpc-status` 0.
    var succeeded: Bool {
        state.fields.withLock { $0.outcome == .succeeded }
    }

    package static func cancelledError(url: String) -> FirestoreError {
        FirestoreError(code: .cancelled, message: "gRPC call cancelled: \(CurlErrorMapping.redacted(url))")
    }
}
