internal import CNghttp2

/// One gRPC call as the HTTP/2 loop sees it: its request headers, the HTTP/2 stream it runs on, and the response
/// as it arrives (head, messages, trailers), with the rules that turn how the stream ended into the call's result.
///
/// Created on the caller's thread and handed to the loop's thread, which alone uses it from then on: that
/// hand-over is what makes the `@unchecked Sendable` sound. What other threads share lives in ``GRPCCallState``
/// behind its lock.
final class GRPCStream: @unchecked Sendable {
    let state: GRPCCallState
    /// The request URL, for error messages (shown redacted).
    let url: String
    /// The request's header fields, pseudo-headers first, names in lower case.
    let requestHeaders: [(name: String, value: String)]
    /// The HTTP/2 stream, once opened on a connection.
    var streamID: Int32?
    /// Whether the call opened a new connection (1) or joined one (0), for ``GRPCStreamingCall/connectionsOpened``.
    var connectionsOpened = 0
    /// Received bytes of complete messages not yet returned to the server's flow-control window: returned once
    /// the consumer has taken enough that fewer than the limit wait.
    var unconsumedBytes = 0
    /// Since when (``HTTP2Loop/now()``) the call waits for the server: since it sent request bytes the server has
    /// not answered yet (a Listen call's added target), or since it sent its whole request. A call that waits in
    /// silence gets its connection pinged (``HTTP2Connection``). `nil` for a call that sent nothing since the server
    /// last answered it (a quiet Listen stream, which may rightly hear nothing for a long time).
    var awaitingSince: UInt64?
    /// Whether the call has sent its whole request (END_STREAM): it then waits until it ends.
    var sendEnded = false

    /// The call sent request bytes (`ended`: the last of them) at `now`.
    func sent(ended: Bool, now: UInt64) {
        if awaitingSince == nil { awaitingSince = now }
        if ended { sendEnded = true }
    }

    /// The server sent something on this call: a call still sending waits for nothing until it sends again.
    func heard() {
        if !sendEnded { awaitingSince = nil }
    }

    private var decoder: GRPCFrameDecoder
    private var status: Int?
    private var headFields: [HTTPHeader] = []
    private(set) var headComplete = false
    private var isGRPCResponse = false
    private var trailerFields: [HTTPHeader] = []
    /// The first bytes of a body that is not gRPC (an error page), for the error message.
    private var foreignBody: [UInt8] = []
    /// Why the response was refused while it arrived (a malformed frame).
    private var failure: FirestoreError?

    /// The largest part of a non-gRPC body quoted in an error message, in bytes.
    private static let foreignBodyQuoteLimit = 512

    /// Prepares the call: validates `metadata` and builds the request headers.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a header name or value with CR, LF or NUL, or a name
    ///   with a colon or space.
    init(
        url: String, method: String, authority: String, isTLS: Bool, metadata: [HTTPHeader],
        configuration: GRPCChannel.Configuration, state: GRPCCallState
    ) throws(FirestoreError) {
        self.url = url
        self.state = state
        decoder = GRPCFrameDecoder(maxMessageByteCount: configuration.maxMessageByteCount)
        func forbidden(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D || byte == 0 }
        var headers: [(name: String, value: String)] = [
            (":method", "POST"), (":scheme", isTLS ? "https" : "http"), (":path", method), (":authority", authority),
            ("content-type", "application/grpc"), ("te", "trailers"), ("user-agent", configuration.userAgent),
        ]
        for header in metadata {
            guard !header.name.isEmpty,
                !header.name.utf8.contains(where: { forbidden($0) || $0 == 0x3A || $0 == 0x20 }),
                !header.value.utf8.contains(where: forbidden)
            else {
                throw .invalidArgument("invalid gRPC metadata name or value: \(header.name)")
            }
            // HTTP/2 header names are lower case (RFC 9113 §8.2.1).
            headers.append((header.name.lowercased(), header.value))
        }
        requestHeaders = headers
    }

    // MARK: Response

    /// A header field of the response head (`isTrailer` false) or of its trailers.
    func receiveHeader(name: String, value: String, isTrailer: Bool) {
        if isTrailer || headComplete {
            trailerFields.append(HTTPHeader(name, value))
        } else if name == ":status" {
            status = Int(value)
        } else if !name.hasPrefix(":") {
            headFields.append(HTTPHeader(name, value))
        }
    }

    /// The response head is complete: it is published to the call.
    func headEnded() {
        guard !headComplete else { return }
        headComplete = true
        let head = GRPCResponseHead(status: status ?? 0, headers: headFields)
        isGRPCResponse = head.status == 200 && head.isGRPC
        state.fields.withLock { $0.head = head }
    }

    /// Response body bytes: decoded into messages for the call, or kept (their start) when the response is not gRPC.
    /// - Returns: how many of the bytes to return to the stream's flow-control window now; the rest wait in
    ///   ``unconsumedBytes`` until the consumer has taken messages (``consumed()``).
    func receiveData(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard failure == nil else { return bytes.count }
        guard isGRPCResponse else {
            foreignBody.append(contentsOf: bytes.prefix(max(0, Self.foreignBodyQuoteLimit - foreignBody.count)))
            return bytes.count
        }
        let messages: [[UInt8]]
        do {
            messages = try decoder.decode(bytes)
        } catch {
            failure = FirestoreError(
                code: .internal, message: "malformed gRPC response from \(Redaction.url(url)): \(error)")
            return bytes.count
        }
        let full = state.fields.withLock { fields -> Bool in
            for message in messages { fields.bufferedByteCount += message.count + GRPCFrame.headerByteCount }
            guard fields.bufferedByteCount >= state.maxBufferedByteCount else { return false }
            fields.receivePaused = true
            return true
        }
        if !messages.isEmpty { state.continuation.yield(messages) }
        guard full else { return bytes.count }
        unconsumedBytes += bytes.count
        return 0
    }

    /// The consumer took messages and fewer than the limit wait: the bytes held back, to return to the window.
    func consumed() -> Int {
        let held = unconsumedBytes
        unconsumedBytes = 0
        return held
    }

    /// Whether a malformed response was refused while it arrived: the loop resets the stream and ends the call.
    var refusal: FirestoreError? { failure }

    /// The call's result once the server ended its half of the stream (`END_STREAM`): `nil` for `grpc-status` 0.
    func outcome() -> FirestoreError? {
        if let failure { return failure }
        let location = Redaction.url(url)
        guard headComplete, let status else {
            return FirestoreError(code: .unavailable, message: "no gRPC response head from \(location)")
        }
        let headStatus = GRPCStatus(headers: headFields)
        let trailerStatus = GRPCStatus(headers: trailerFields)
        guard status == 200 else {
            if let named = trailerStatus ?? headStatus, !named.isOK {
                var error = named.error
                error.httpStatus = status
                return error
            }
            let body = String(decoding: foreignBody, as: UTF8.self)
            var error = FirestoreError(
                code: GRPCStatus.code(forHTTPStatus: status),
                message: "HTTP \(status) instead of a gRPC response from \(location)"
                    + (body.isEmpty ? "" : ": \(body)"),
                httpStatus: status)
            // 426 Upgrade Required and 505 HTTP Version Not Supported: a server or proxy that will not carry HTTP/2.
            error.lacksHTTP2 = status == 426 || status == 505
            return error
        }
        guard isGRPCResponse else {
            let type = headFields.last { $0.matches("content-type") }?.value ?? "none"
            return FirestoreError(
                code: .unknown, message: "not a gRPC response from \(location) (content-type \(type))",
                httpStatus: status)
        }
        guard let named = trailerStatus ?? headStatus else {
            return FirestoreError(code: .unknown, message: "the gRPC call to \(location) ended without a grpc-status")
        }
        guard named.isOK else { return named.error }
        guard !decoder.hasPartialFrame else {
            return FirestoreError(
                code: .internal,
                message: "the gRPC response from \(location) ended inside a message (after \(decoder.byteCount) bytes)")
        }
        return nil
    }

    /// The call's result when the server reset the stream (`RST_STREAM` with `code`) before ending it, mapped as
    /// gRPC's `PROTOCOL-HTTP2.md` ("Errors") says: `REFUSED_STREAM` `.unavailable` (nothing was processed),
    /// `CANCEL` `.cancelled`, `ENHANCE_YOUR_CALM` `.resourceExhausted`, `INADEQUATE_SECURITY` `.permissionDenied`,
    /// `HTTP_1_1_REQUIRED` `.unavailable` (the server will not carry HTTP/2), anything else `.internal`.
    func resetError(code: UInt32) -> FirestoreError {
        let name = HTTP2ErrorCode.name(code)
        let message = "the server reset the gRPC stream to \(Redaction.url(url)) (HTTP/2 \(name))"
        var error: FirestoreError
        switch code {
        case UInt32(NGHTTP2_REFUSED_STREAM.rawValue):
            error = FirestoreError(code: .unavailable, message: message)
            error.requestWasNotSent = true
        case UInt32(NGHTTP2_CANCEL.rawValue):
            error = FirestoreError(code: .cancelled, message: message)
        case UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue):
            error = FirestoreError(code: .resourceExhausted, message: message)
        case UInt32(NGHTTP2_INADEQUATE_SECURITY.rawValue):
            error = FirestoreError(code: .permissionDenied, message: message)
        case UInt32(NGHTTP2_HTTP_1_1_REQUIRED.rawValue):
            error = FirestoreError(code: .unavailable, message: message + ": gRPC needs HTTP/2")
            error.lacksHTTP2 = true
        default:
            error = FirestoreError(code: .internal, message: message)
        }
        return error
    }

    /// The trailers received so far.
    var trailers: [HTTPHeader] { trailerFields }

    /// `error`, a failure of the connection to `server` (a base URL), named by this call's own URL as the call's
    /// other errors are.
    func named(_ error: FirestoreError, server: String) -> FirestoreError {
        var named = error
        named.message = error.message.replacing(Redaction.url(server), with: Redaction.url(url))
        return named
    }
}
