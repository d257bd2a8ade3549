import Synchronization

/// The part of one gRPC call that the caller's threads and the channel's thread (``HTTP2Loop``) share, behind one
/// lock: the outbound bytes, the half-close, the receive buffer accounting, the response head and trailers, and the
/// continuation that feeds ``GRPCStreamingCall/responses`` (the messages of each network read as one batch, so the
/// consumer is woken once per read rather than once per message).
///
/// Buffering policy: outbound messages queue without limit until nghttp2's data source takes them (callers send a
/// few small requests). Inbound, decoded messages wait in the response stream until consumed; once
/// ``maxBufferedByteCount`` bytes wait, the stream's received bytes are no longer returned to its HTTP/2
/// flow-control window, so the server is held back (RFC 9113 §5.2) until the consumer has taken enough that fewer
/// bytes wait.
final class GRPCCallState: Sendable {
    /// How a call ended, as the response stream sees it.
    enum Outcome: Sendable {
        case running
        case succeeded
        case failed
    }

    struct Fields {
        /// Framed bytes not yet handed to nghttp2 start at `outboundStart`.
        var outbound: [UInt8] = []
        var outboundStart = 0
        /// `closeSend()` was called: once `outbound` is drained the data source ends the request (END_STREAM).
        var sendClosed = false
        /// The data source found nothing to send and deferred; the next `send` must resume it.
        var sendPaused = false
        /// The receive buffer reached its limit and received bytes are held back from the window; consuming below
        /// the limit must return them.
        var receivePaused = false
        /// Bytes (messages plus 5 per message) yielded to the response stream and not yet consumed.
        var bufferedByteCount = 0
        var outcome = Outcome.running
        var head: GRPCResponseHead?
        var trailers: [HTTPHeader] = []
        var connectionsOpened: Int?
    }

    /// The call's number, unique within its channel.
    let id: Int
    /// The receive buffer limit in bytes (at least 1).
    let maxBufferedByteCount: Int
    let fields = Mutex(Fields())
    let continuation: AsyncThrowingStream<[[UInt8]], any Error>.Continuation

    init(id: Int, maxBufferedByteCount: Int, continuation: AsyncThrowingStream<[[UInt8]], any Error>.Continuation) {
        self.id = id
        self.maxBufferedByteCount = max(1, maxBufferedByteCount)
        self.continuation = continuation
    }

    /// Ends the response stream once: with `error`, or normally when `nil`. Later calls do nothing.
    /// - Returns: whether this call ended it.
    @discardableResult
    func end(with error: FirestoreError?, trailers: [HTTPHeader]? = nil, connectionsOpened: Int? = nil) -> Bool {
        let first = fields.withLock { fields in
            if let trailers { fields.trailers = trailers }
            if let connectionsOpened { fields.connectionsOpened = connectionsOpened }
            guard fields.outcome == .running else { return false }
            fields.outcome = error == nil ? .succeeded : .failed
            fields.outbound = []
            fields.outboundStart = 0
            return true
        }
        guard first else { return false }
        if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
        return true
    }
}
