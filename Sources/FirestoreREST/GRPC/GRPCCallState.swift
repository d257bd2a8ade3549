import Synchronization

/// The part of one gRPC call that the caller's threads and the multi thread share, behind one lock: the
/// outbound bytes, the half-close, the receive buffer accounting, the response head and trailers, and the
/// continuation that feeds ``GRPCStreamingCall/responses``.
///
/// Buffering policy: outbound messages queue without limit until libcurl's read callback takes them
/// (callers send a few small requests). Inbound, decoded messages wait in the response stream until consumed;
/// once ``maxBufferedByteCount`` bytes wait, the write callback returns `CURL_WRITEFUNC_PAUSE`, so libcurl
/// stops reading the stream (HTTP/2 flow control then holds the server back) until the consumer has taken
/// enough that fewer bytes wait (curl_easy_pause(3)).
final class GRPCCallState: Sendable {
    /// How a call ended, as the response stream sees it.
    enum Outcome: Sendable {
        case running
        case succeeded
        case failed
    }

    struct Fields {
        /// Framed bytes not yet handed to libcurl start at `outboundStart`.
        var outbound: [UInt8] = []
        var outboundStart = 0
        /// `closeSend()` was called: once `outbound` is drained the read callback returns 0 (END_STREAM).
        var sendClosed = false
        /// The read callback returned `CURL_READFUNC_PAUSE`; the next `send` must unpause.
        var sendPaused = false
        /// The write callback returned `CURL_WRITEFUNC_PAUSE`; consuming below the limit must unpause.
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
    let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation

    init(id: Int, maxBufferedByteCount: Int, continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
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
