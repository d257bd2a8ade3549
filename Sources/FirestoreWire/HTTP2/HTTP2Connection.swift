internal import CNghttp2

/// One HTTP/2 connection of a ``GRPCChannel``: an nghttp2 client session over an ``HTTP2Socket``, carrying gRPC
/// calls (``GRPCStream``) as streams.
///
/// What it guarantees that libcurl 7.88 did not: a call ends the moment the server ends its half of the stream
/// (trailers, a trailers-only answer, `END_STREAM` on data), even while the client's half stays open (a Listen call
/// with nothing to send); a `RST_STREAM`, a `GOAWAY`, the connection closing or failing each end the calls they
/// concern with an error naming what happened.
///
/// Flow control: the connection window is returned at once; a stream's window only as its consumer takes messages
/// (``GRPCStream/receiveData(_:)``), so a slow consumer holds its server back (RFC 9113 §5.2) without holding the
/// other calls.
///
/// Health (``CurlTransport/ConnectionHealth``): a PING when a call that sent its whole request hears nothing for
/// `pingAfterSilence`, when a call goes out on a connection silent for `pingAfterIdle`, and when a call passed its
/// deadline (the connection is then suspect: no new call until the PING is answered); a PING unanswered for
/// `pingTimeout` fails the connection; at `maxConnectionAge` it takes no new calls. A `GOAWAY` with an error code,
/// and one nghttp2 sends itself after a protocol error, fail the connection at once.
///
/// Used by the loop's thread only (``HTTP2Loop``).
final class HTTP2Connection {
    /// Which connection of the channel this is (1, 2, ...), for messages.
    let number: Int
    let socket: HTTP2Socket
    /// `scheme://host[:port]`, for messages (shown redacted).
    let baseURL: String
    /// The calls running on this connection, by stream ID.
    private(set) var streams: [Int32: GRPCStream] = [:]
    /// Whether new calls may open streams here: `false` after a `GOAWAY`, after ``retire()`` and once failed.
    private(set) var acceptsStreams = true
    /// Set once the connection has ended: every call on it ended with an error, the socket is to be closed.
    private(set) var failure: FirestoreError?
    /// When the last bytes arrived (``HTTP2Loop/now()``, milliseconds).
    private(set) var lastReceived: UInt64
    /// When an unanswered PING went out, if one did.
    private(set) var pingSent: UInt64?
    /// When the last PING went out, and whether the server sent a HEADERS or DATA frame since: gRPC servers refuse
    /// PINGs that come more often than every 5 minutes while they send nothing (grpc-java's `permitKeepAliveTime`).
    private var lastPing: (at: UInt64, heardSince: Bool)?
    /// Whether new calls wait for the answer to a PING first (a call passed its deadline here).
    private(set) var suspect = false
    /// Set when a call's silence made this connection send a PING: the path to the server is in doubt, and the other
    /// channels to it are asked to check theirs (``HTTP2PathWatch``). Read and cleared by the loop.
    var doubted = false
    /// When the connection was set up, for `maxConnectionAge`.
    private let createdAt: UInt64
    private let health: CurlTransport.ConnectionHealth
    /// What nghttp2 last reported as wrong with the server's frames, for the message when it ends the connection.
    private var protocolProblem: String?
    /// Until when the server's first SETTINGS frame may take (milliseconds): a server that sends none does not
    /// speak HTTP/2.
    private let settingsDeadline: UInt64
    private let settingsTimeout: UInt64
    private var settingsReceived = false
    /// The server's first bytes (up to 80), until the first frame's type is known.
    private var firstBytes: [UInt8] = []
    private var firstFrameChecked = false
    private var goAway: (lastStreamID: Int32, code: UInt32, detail: String)?
    private var session: OpaquePointer?
    private var output: [UInt8] = []
    private var outputStart = 0
    /// The 64 KiB that ``readable(now:)`` receives into, kept for the connection's life instead of allocated and
    /// zeroed again for every read (a large result is read in thousands of reads).
    private var receiveBuffer: [UInt8] = []
    /// Calls that ended during the current read or write, for the loop to forget.
    private(set) var ended: [GRPCStream] = []

    /// The flow-control window the client advertises for each stream, in bytes: how much the server may send a
    /// stream beyond what its consumer has taken.
    static let streamWindow: Int32 = 4 * 1024 * 1024
    /// The connection's flow-control window, in bytes.
    static let connectionWindow: Int32 = 64 * 1024 * 1024

    /// Sets up the session and queues the client preface and SETTINGS.
    /// - Throws: ``FirestoreError`` `.unknown` when nghttp2 cannot allocate.
    init(
        number: Int, socket: HTTP2Socket, baseURL: String, settingsTimeout: UInt64,
        health: CurlTransport.ConnectionHealth, now: UInt64
    ) throws(FirestoreError) {
        self.number = number
        self.socket = socket
        self.baseURL = baseURL
        self.health = health
        createdAt = now
        lastReceived = now
        settingsDeadline = now + settingsTimeout
        self.settingsTimeout = settingsTimeout
        var callbacks: OpaquePointer?
        var options: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks,
            nghttp2_option_new(&options) == 0, let options
        else {
            throw FirestoreError(code: .unknown, message: "nghttp2 could not allocate a session")
        }
        defer {
            nghttp2_session_callbacks_del(callbacks)
            nghttp2_option_del(options)
        }
        Self.install(callbacks)
        nghttp2_option_set_no_auto_window_update(options, 1)
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_client_new2(&session, callbacks, context, options) == 0, let session else {
            throw FirestoreError(code: .unknown, message: "nghttp2 could not allocate a session")
        }
        let settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(Self.streamWindow)),
        ]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
        _ = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.connectionWindow)
    }

    deinit {
        if let session { nghttp2_session_del(session) }
    }

    // MARK: Calls

    /// Opens `stream` as a new HTTP/2 stream: its headers go out, then its messages as they are queued. A connection
    /// that has been silent for `pingAfterIdle` is pinged with it.
    /// - Returns: `nil`, or why it could not be opened (the call is then ended by the caller).
    func open(_ stream: GRPCStream, now: UInt64) -> FirestoreError? {
        guard let session, acceptsStreams, failure == nil else {
            return FirestoreError(
                code: .unavailable, message: "the HTTP/2 connection to \(Redaction.url(baseURL)) is closing")
        }
        // Every name and value, back to back; nghttp2 copies them (nghttp2_submit_request(3)).
        var storage: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        for (name, value) in stream.requestHeaders {
            let nameStart = storage.count
            storage += name.utf8
            let valueStart = storage.count
            storage += value.utf8
            spans.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        var provider = nghttp2_data_provider()
        provider.read_callback = { session, streamID, buffer, length, flags, _, context in
            guard let context, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(context).takeUnretainedValue()
            return connection.fillRequestBody(
                streamID, UnsafeMutableRawBufferPointer(start: buffer, count: length), flags)
        }
        let streamID: Int32 = storage.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return Int32(NGHTTP2_ERR_INVALID_ARGUMENT.rawValue) }
            let fields = spans.map { span in
                nghttp2_nv(
                    name: base + span.name.lowerBound, value: base + span.value.lowerBound,
                    namelen: span.name.count, valuelen: span.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return nghttp2_submit_request(session, nil, fields, fields.count, &provider, nil)
        }
        guard streamID > 0 else {
            return FirestoreError(
                code: .unavailable,
                message: "could not open an HTTP/2 stream to \(Redaction.url(baseURL)): "
                    + String(cString: nghttp2_strerror(streamID)))
        }
        stream.streamID = streamID
        streams[streamID] = stream
        if now >= lastReceived + CurlTransport.ConnectionHealth.milliseconds(health.pingAfterIdle) { ping(now: now) }
        return nil
    }

    /// More request bytes are queued for `stream`, or it half-closed: lets nghttp2 ask for them again.
    func resumeSending(_ stream: GRPCStream) {
        guard let session, let id = stream.streamID, streams[id] != nil else { return }
        _ = nghttp2_session_resume_data(session, id)
    }

    /// The consumer of `stream` took messages: returns what was held back to the stream's window.
    func returnWindow(_ stream: GRPCStream) {
        guard let session, let id = stream.streamID, streams[id] != nil else { return }
        let bytes = stream.consumed()
        if bytes > 0 { _ = nghttp2_session_consume_stream(session, id, bytes) }
    }

    /// Ends `stream` from the client's side (`RST_STREAM` `CANCEL`); its call has already ended.
    func cancel(_ stream: GRPCStream) {
        guard let session, let id = stream.streamID, streams.removeValue(forKey: id) != nil else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, UInt32(NGHTTP2_CANCEL.rawValue))
    }

    /// Takes no new calls; the calls on it go on, and the loop closes it once they have ended.
    func retire() {
        acceptsStreams = false
    }

    /// Sends a PING (its answer sets ``lastReceived`` and clears ``pingSent``), unless one is unanswered.
    func ping(now: UInt64) {
        guard let session, pingSent == nil, failure == nil else { return }
        pingSent = now
        lastPing = (now, false)
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Whether a new call may open a stream here now; a connection past `maxConnectionAge` is retired first.
    func takesNewCall(now: UInt64) -> Bool {
        if acceptsStreams, now >= createdAt + CurlTransport.ConnectionHealth.milliseconds(health.maxConnectionAge) {
            retire()
        }
        return acceptsStreams && failure == nil
    }

    /// A call on this connection passed its deadline: the path may be dead. New calls wait until a PING is
    /// answered (the connection is then used again) or is not (it fails, and they go to a new one).
    func suspectAfterDeadline(now: UInt64) {
        guard failure == nil, acceptsStreams else { return }
        suspect = true
        ping(now: now)
    }

    /// Forgets the calls that ended since the last call of this method.
    func takeEnded() -> [GRPCStream] {
        defer { ended = [] }
        return ended
    }

    // MARK: I/O

    /// Whether bytes wait to go out (poll for writing).
    var wantsWrite: Bool {
        guard failure == nil else { return false }
        return outputStart < output.count || session.map { nghttp2_session_want_write($0) != 0 } ?? false
    }

    /// Whether the connection has nothing left to do: failed, or going away with no calls left.
    var isDone: Bool {
        failure != nil || (!acceptsStreams && streams.isEmpty && outputStart >= output.count)
    }

    /// Reads everything the socket has and hands it to nghttp2.
    func readable(now: UInt64) {
        var buffer = receiveBuffer.isEmpty ? [UInt8](repeating: 0, count: 64 * 1024) : receiveBuffer
        receiveBuffer = []
        defer { receiveBuffer = buffer }
        while failure == nil {
            let result = buffer.withUnsafeMutableBytes { socket.receive(into: $0) }
            switch result {
            case .wouldBlock:
                return
            case .closed:
                fail(closedError())
                return
            case .failed(let reason):
                // After a GOAWAY, the server's reason says more than the reset that follows it.
                fail(goAway == nil ? failedError(reason) : closedError())
                return
            case .done(let count):
                // Any bytes from the server show the path is alive, as an answered PING does.
                lastReceived = now
                pingSent = nil
                suspect = false
                process(buffer[0..<count])
            }
        }
    }

    /// Writes what nghttp2 has queued, as far as the socket takes it.
    func flush() {
        guard let session else { return }
        while failure == nil {
            if outputStart >= output.count {
                output.removeAll(keepingCapacity: true)
                outputStart = 0
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &data)
                guard count > 0, let data else {
                    if count < 0 { fail(protocolError(Int32(count))) }
                    return
                }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            }
            let result = output.withUnsafeBytes { bytes in
                socket.send(UnsafeRawBufferPointer(rebasing: bytes[outputStart...]))
            }
            switch result {
            case .done(let count): outputStart += count
            case .wouldBlock: return
            case .closed: failAfterReading(closedError())
            case .failed(let reason):
                // After a GOAWAY, the server's reason says more than the reset that follows it.
                failAfterReading(goAway == nil ? failedError(reason) : closedError())
            }
        }
    }

    /// Fails the connection with `error` after reading what the server sent before it went away: an HTTP/1.x server
    /// answers the preface and closes, so sending breaks while its answer waits unread.
    private func failAfterReading(_ error: FirestoreError) {
        readable(now: lastReceived)
        fail(error)
    }

    /// Checks the connection's deadlines: the server's first SETTINGS, the answer to a PING, a call waiting in
    /// silence (a PING goes out), the connection's age (it takes no new calls).
    func checkDeadlines(now: UInt64) {
        guard failure == nil else { return }
        let pingTimeout = CurlTransport.ConnectionHealth.milliseconds(health.pingTimeout)
        _ = takesNewCall(now: now)
        if pingSent == nil, let waiting = streams.values.compactMap(\.awaitingSince).min(),
            now >= max(waiting, lastReceived) + CurlTransport.ConnectionHealth.milliseconds(health.pingAfterSilence),
            mayPingAgain(now: now)
        {
            ping(now: now)
            doubted = true
        }
        if !settingsReceived, now >= settingsDeadline {
            // Silence is no proof that HTTP/2 is missing (a server or proxy without it answers the preface with an
            // HTTP/1.x error or closes): a path that went dark, a NAT that dropped the connection, look the same. So
            // the call is retried as gRPC, and neither a Listen feed nor an automatic client falls back for it.
            fail(
                FirestoreError(
                    code: .unavailable,
                    message: "the server at \(Redaction.url(baseURL)) sent no HTTP/2 settings in "
                        + "\(Double(settingsTimeout) / 1000) s: the path to it may be dead, or it (or a proxy in the "
                        + "way) may not speak HTTP/2, which gRPC needs"))
        } else if let pingSent, now - pingSent >= pingTimeout {
            fail(
                FirestoreError(
                    code: .unavailable,
                    message: "the HTTP/2 connection to \(Redaction.url(baseURL)) did not answer a PING in "
                        + "\(Self.seconds(pingTimeout)) s: the path to the server is dead"))
        }
    }

    /// Whether a PING for a silent call (or a check another channel asked for) may go out now: the server sent a
    /// frame since the last one, or 5 minutes passed (gRPC servers count more frequent PINGs without data as abuse and
    /// end the connection).
    func mayPingAgain(now: UInt64) -> Bool {
        guard let lastPing else { return true }
        return lastPing.heardSince || now >= lastPing.at + 300_000
    }

    /// `milliseconds` as seconds, for messages: `10`, `2.5`.
    private static func seconds(_ milliseconds: UInt64) -> String {
        milliseconds % 1_000 == 0 ? "\(milliseconds / 1_000)" : "\(Double(milliseconds) / 1_000)"
    }

    /// The earliest deadline ``checkDeadlines(now:)`` watches exactly, if any (the loop looks at least every second
    /// for the others).
    func nextDeadline() -> UInt64? {
        guard failure == nil else { return nil }
        if !settingsReceived { return settingsDeadline }
        return pingSent.map { $0 + CurlTransport.ConnectionHealth.milliseconds(health.pingTimeout) }
    }

    /// Ends every call on the connection with `error` and takes no more.
    func fail(_ error: FirestoreError) {
        guard failure == nil else { return }
        failure = error
        acceptsStreams = false
        for stream in streams.values.sorted(by: { ($0.streamID ?? 0) < ($1.streamID ?? 0) }) {
            finish(stream, with: stream.named(error, server: baseURL))
        }
        streams = [:]
    }

    // MARK: Receiving

    private func process(_ bytes: ArraySlice<UInt8>) {
        guard let session else { return }
        if !firstFrameChecked {
            firstBytes += bytes.prefix(max(0, 80 - firstBytes.count))
            guard firstBytes.count >= 4 else { return feed(session, bytes) }
            firstFrameChecked = true
            // RFC 9113 §3.4: a server's first frame is SETTINGS (type 4) on stream 0.
            if firstBytes[3] != 0x04 {
                fail(notHTTP2(firstBytes))
                return
            }
        }
        feed(session, bytes)
    }

    private func feed(_ session: OpaquePointer, _ bytes: ArraySlice<UInt8>) {
        let result = bytes.withUnsafeBytes { raw in
            nghttp2_session_mem_recv(session, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        if result < 0 {
            fail(protocolError(Int32(result)))
        }
    }

    /// The error for a server whose first bytes are not an HTTP/2 SETTINGS frame: an HTTP/1.x answer (its status
    /// line quoted), or anything else (its first bytes quoted, printable ASCII only).
    private func notHTTP2(_ bytes: [UInt8]) -> FirestoreError {
        let answer: String
        if bytes.starts(with: "HTTP/".utf8) {
            answer = String(decoding: bytes.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        } else {
            let printable = bytes.prefix(40).map { (0x20...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "." }
            answer = "bytes that are not HTTP/2 (\"\(String(printable))\")"
        }
        var error = FirestoreError(
            code: .unavailable,
            message: "the server at \(Redaction.url(baseURL)) answered with \(answer), but gRPC needs HTTP/2 (a proxy "
                + "or server in the way that does not speak HTTP/2?)")
        error.lacksHTTP2 = true
        return error
    }

    private func protocolError(_ code: Int32) -> FirestoreError {
        let reason = String(cString: nghttp2_strerror(code))
        var error = FirestoreError(
            code: .unavailable,
            message: "HTTP/2 protocol error on the connection to \(Redaction.url(baseURL)): \(reason)"
                + (settingsReceived ? "" : "; the server may not speak HTTP/2, which gRPC needs"))
        error.lacksHTTP2 = !settingsReceived
        return error
    }

    private func failedError(_ reason: String) -> FirestoreError {
        FirestoreError(
            code: .unavailable, message: "the HTTP/2 connection to \(Redaction.url(baseURL)) failed: \(reason)")
    }

    private func closedError() -> FirestoreError {
        let location = Redaction.url(baseURL)
        if let goAway {
            return FirestoreError(
                code: goAway.code == UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue) ? .resourceExhausted : .unavailable,
                message:
                    "the server closed the HTTP/2 connection to \(location) (GOAWAY \(HTTP2ErrorCode.name(goAway.code))"
                    + (goAway.detail.isEmpty ? "" : ": \(goAway.detail)") + ")")
        }
        var error = FirestoreError(
            code: .unavailable,
            message: "the server closed the HTTP/2 connection to \(location)"
                + (settingsReceived ? "" : " before sending HTTP/2 settings (does it speak HTTP/2, which gRPC needs?)"))
        // Not proof that HTTP/2 cannot work: a server that restarts closes connections the same way.
        error.mayLackHTTP2 = !settingsReceived
        return error
    }

    /// Ends `stream`'s call with `error` (or success) and notes it for the loop.
    private func finish(_ stream: GRPCStream, with error: FirestoreError?) {
        stream.state.end(with: error, trailers: stream.trailers, connectionsOpened: stream.connectionsOpened)
        ended.append(stream)
    }

    /// The server ended its half of `id`: the call ends with its outcome, and the client's half is closed too
    /// (`RST_STREAM` `NO_ERROR`, RFC 9113 §8.1) when it was still open.
    private func remoteEnded(_ id: Int32) {
        guard let session, let stream = streams.removeValue(forKey: id) else { return }
        finish(stream, with: stream.outcome())
        if nghttp2_session_get_stream_local_close(session, id) == 0 {
            _ = nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, UInt32(NGHTTP2_NO_ERROR.rawValue))
        }
    }

    fileprivate func fillRequestBody(
        _ id: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[id] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        return stream.state.fields.withLock { fields in
            let available = fields.outbound.count - fields.outboundStart
            if available > 0 {
                stream.sent(ended: false, now: HTTP2Loop.now())
                let count = min(available, buffer.count)
                fields.outbound.withUnsafeBytes { bytes in
                    buffer.copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: bytes[fields.outboundStart...].prefix(count)))
                }
                fields.outboundStart += count
                if fields.outboundStart == fields.outbound.count {
                    fields.outbound.removeAll(keepingCapacity: true)
                    fields.outboundStart = 0
                }
                return count
            }
            if fields.sendClosed || fields.outcome != .running {
                flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
                stream.sent(ended: true, now: HTTP2Loop.now())
                return 0
            }
            fields.sendPaused = true
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
    }

    // MARK: nghttp2 callbacks

    private static func install(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, context in
            guard let frame, let name, let value, let context else { return 0 }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(context).takeUnretainedValue()
            guard let stream = connection.streams[frame.pointee.hd.stream_id] else { return 0 }
            stream.heard()
            stream.receiveHeader(
                name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self),
                isTrailer: frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS && stream.headComplete)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) {
            session, _, id, data, length, context in
            guard let session, let context else { return 0 }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(context).takeUnretainedValue()
            _ = nghttp2_session_consume_connection(session, length)
            guard let stream = connection.streams[id] else {
                _ = nghttp2_session_consume_stream(session, id, length)
                return 0
            }
            stream.heard()
            let returned = stream.receiveData(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length))
            if returned > 0 { _ = nghttp2_session_consume_stream(session, id, returned) }
            if let refusal = stream.refusal {
                connection.streams[id] = nil
                connection.finish(stream, with: refusal)
                _ = nghttp2_submit_rst_stream(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, UInt32(NGHTTP2_CANCEL.rawValue))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, context in
            guard let frame, let context else { return 0 }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(context).takeUnretainedValue()
            connection.frameReceived(frame)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, context in
            guard let frame, let context else { return 0 }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(context).takeUnretainedValue()
            if Int(frame.pointee.hd.type) == Int(NGHTTP2_GOAWAY.rawValue) {
                connection.sentGoAway(code: frame.pointee.goaway.error_code)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, code, context in
            guard let frame, let context else { return 0 }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(context).takeUnretainedValue()
            connection.protocolProblem =
                "\(HTTP2Connection.frameName(frame.pointee.hd.type)) on stream \(frame.pointee.hd.stream_id): "
                + String(cString: nghttp2_strerror(code))
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, context in
            guard let message, let context else { return 0 }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(context).takeUnretainedValue()
            let text = String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
            connection.protocolProblem = String(text.prefix(200))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, code, context in
            guard let context else { return 0 }
            let connection = Unmanaged<HTTP2Connection>.fromOpaque(context).takeUnretainedValue()
            if let stream = connection.streams.removeValue(forKey: id) {
                connection.finish(stream, with: code == 0 ? stream.outcome() : stream.resetError(code: code))
            }
            return 0
        }
    }

    /// An HTTP/2 frame type's name (RFC 9113 §6), for messages.
    static func frameName(_ type: UInt8) -> String {
        let names = [
            "DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE",
            "CONTINUATION",
        ]
        return Int(type) < names.count ? names[Int(type)] : "frame type \(type)"
    }

    /// The client sent a GOAWAY: nghttp2 ended the session after a protocol error of the server's (it does so itself,
    /// RFC 9113 §5.4.1), and reads nothing more. Every call on the connection ends now, naming the error, instead of
    /// waiting out its deadline.
    private func sentGoAway(code: UInt32) {
        fail(
            FirestoreError(
                code: .unavailable,
                message: "HTTP/2 protocol error on the connection to \(Redaction.url(baseURL)): the server "
                    + (protocolProblem.map { "sent what HTTP/2 forbids (\($0))" } ?? "broke the protocol")
                    + "; the client ended the connection (GOAWAY \(HTTP2ErrorCode.name(code)))"))
    }

    private func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        if header.type == UInt8(NGHTTP2_HEADERS.rawValue) || header.type == UInt8(NGHTTP2_DATA.rawValue) {
            lastPing?.heardSince = true
        }
        switch Int(header.type) {
        case Int(NGHTTP2_SETTINGS.rawValue):
            settingsReceived = true
        case Int(NGHTTP2_PING.rawValue) where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            pingSent = nil
            suspect = false
        case Int(NGHTTP2_GOAWAY.rawValue):
            let away = frame.pointee.goaway
            let detail =
                away.opaque_data.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: away.opaque_data_len), as: UTF8.self)
                }
                ?? ""
            goAway = (away.last_stream_id, away.error_code, String(detail.prefix(200)))
            acceptsStreams = false
            // With an error code the server is done with the connection: its calls end now, named by the GOAWAY
            // (with NO_ERROR the calls it took go on, and nghttp2 refuses the others, RFC 9113 §6.8).
            if away.error_code != UInt32(NGHTTP2_NO_ERROR.rawValue) { fail(closedError()) }
        case Int(NGHTTP2_HEADERS.rawValue):
            guard let stream = streams[header.stream_id] else { return }
            stream.headEnded()
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 { remoteEnded(header.stream_id) }
        case Int(NGHTTP2_DATA.rawValue):
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 { remoteEnded(header.stream_id) }
        default:
            break
        }
    }
}
