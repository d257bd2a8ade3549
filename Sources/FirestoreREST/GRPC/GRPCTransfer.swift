internal import CCurl

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One gRPC call's libcurl easy handle and everything its callbacks touch: the request headers, the frame
/// decoder and the response head and trailers.
///
/// Created and configured on the caller's thread, then handed to the ``CurlMultiLoop`` thread, which alone
/// uses it from then on (libcurl-thread(3): a handle may move between threads but is never used by two at
/// once). That hand-over is what makes the `@unchecked Sendable` sound. Shared state lives in
/// ``GRPCCallState`` behind its lock.
final class GRPCTransfer: @unchecked Sendable {
    let state: GRPCCallState
    let easy: CurlEasyHandle
    /// The request URL, for error messages (shown redacted).
    let url: String
    private let configuration: GRPCChannel.Configuration
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var decoder: GRPCFrameDecoder
    private var statusLineSeen = false
    private var status: Int?
    private var headFields: [HTTPHeader] = []
    private var headComplete = false
    private var isGRPCResponse = false
    private var trailerFields: [HTTPHeader] = []
    /// The first bytes of a body that is not gRPC (an error page), for the error message.
    private var foreignBody: [UInt8] = []
    /// Why a callback aborted the transfer.
    private var failure: FirestoreError?

    /// The largest part of a non-gRPC body quoted in an error message, in bytes.
    private static let foreignBodyQuoteLimit = 512

    /// Prepares the transfer: validates `metadata` and sets every option on a new easy handle.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a header name or value with CR, LF or NUL, or a name
    ///   with a colon or space; `.unknown` when libcurl refuses an option or cannot allocate.
    init(
        url: String, metadata: [HTTPHeader], configuration: GRPCChannel.Configuration, state: GRPCCallState
    ) throws(FirestoreError) {
        self.url = url
        self.state = state
        self.configuration = configuration
        decoder = GRPCFrameDecoder(maxMessageByteCount: configuration.maxMessageByteCount)
        easy = try CurlEasyHandle()
        headerList = try Self.headerList(metadata)
        try configure()
    }

    deinit {
        // The loop removed the handle from the multi handle before releasing the transfer; the easy handle
        // itself is cleaned up by CurlEasyHandle's deinit, after which nothing reads this list.
        curl_slist_free_all(headerList)
    }

    // MARK: Configuration

    private static func headerList(_ metadata: [HTTPHeader]) throws(FirestoreError) -> UnsafeMutablePointer<curl_slist>?
    {
        func forbidden(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D || byte == 0 }
        var lines = ["content-type: application/grpc", "te: trailers", "Expect:"]
        for header in metadata {
            guard !header.name.isEmpty,
                !header.name.utf8.contains(where: { forbidden($0) || $0 == 0x3A || $0 == 0x20 }),
                !header.value.utf8.contains(where: forbidden)
            else {
                throw .invalidArgument("invalid gRPC metadata name or value: \(header.name)")
            }
            // HTTP/2 header names are lower case (RFC 9113 §8.2.1).
            let name = header.name.lowercased()
            lines.append(header.value.isEmpty ? "\(name);" : "\(name): \(header.value)")
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = line.withCString({ curl_slist_append(list, $0) }) else {
                curl_slist_free_all(list)
                throw FirestoreError(code: .resourceExhausted, message: "curl_slist_append failed (out of memory)")
            }
            list = appended
        }
        return list
    }

    private func configure() throws(FirestoreError) {
        try easy.reset()
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_URL, url)
        // https: HTTP/2 through ALPN. Cleartext (the emulator) is set by chooseCleartextVersion when the
        // transfer starts.
        try easy.set(
            CURLOPT_HTTP_VERSION, Int(isCleartext ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS))
        try easy.set(CURLOPT_POST, 1)
        // Wait for an existing connection to the host to learn whether it multiplexes, rather than opening a
        // second one at once (CURLOPT_PIPEWAIT(3)).
        try easy.set(CURLOPT_PIPEWAIT, 1)
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, CurlTransfer.milliseconds(configuration.connectTimeout))
        try easy.set(CURLOPT_USERAGENT, configuration.userAgent)
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        try easy.set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        if let caBundlePath = configuration.caBundlePath {
            try easy.set(CURLOPT_CAINFO, caBundlePath)
            try easy.set(CURLOPT_CAPATH, pointer: nil)
        }
        if let proxy = configuration.proxy {
            try easy.set(CURLOPT_PROXY, proxy)
        }
        try easy.set(CURLOPT_HTTPHEADER, list: headerList)

        let context = Unmanaged.passUnretained(self).toOpaque()
        try easy.set(CURLOPT_READDATA, pointer: context)
        let readCode = ccurl_easy_setopt_read_callback(easy.raw, CURLOPT_READFUNCTION) { buffer, size, count, context in
            guard let buffer, let context else { return 0 }
            let transfer = Unmanaged<GRPCTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.fillRequestBody(UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        }
        guard readCode == CURLE_OK else {
            throw FirestoreError(code: .unknown, message: "curl_easy_setopt(READFUNCTION) failed")
        }
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        try easy.set(writeFunction: { data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<GRPCTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size * count))
        })
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
        try easy.set(headerFunction: { data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<GRPCTransfer>.fromOpaque(context).takeUnretainedValue()
            let total = size * count
            let line = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : total)
            return transfer.receiveHeaderLine(line) ? total : 0
        })
    }

    // MARK: Callbacks (multi thread only)

    /// `CURLOPT_READFUNCTION`: hands over queued request bytes; pauses when none are queued; returns 0 (ends
    /// the request stream) once `closeSend()` was called and everything is sent.
    private func fillRequestBody(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        state.fields.withLock { fields in
            let available = fields.outbound.count - fields.outboundStart
            if available > 0 {
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
                return 0
            }
            fields.sendPaused = true
            return Int(CCURL_READFUNC_PAUSE)
        }
    }

    /// `CURLOPT_WRITEFUNCTION`: decodes messages into the response stream, or pauses when the stream holds
    /// its limit; a body that is not gRPC is kept (its start) for the error message.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard failure == nil else { return 0 }
        guard isGRPCResponse else {
            foreignBody.append(contentsOf: bytes.prefix(max(0, Self.foreignBodyQuoteLimit - foreignBody.count)))
            return bytes.count
        }
        let full = state.fields.withLock { fields in
            guard fields.bufferedByteCount >= state.maxBufferedByteCount else { return false }
            fields.receivePaused = true
            return true
        }
        if full {
            return Int(CCURL_WRITEFUNC_PAUSE)
        }
        let messages: [[UInt8]]
        do {
            messages = try decoder.decode(bytes)
        } catch {
            failure = FirestoreError(
                code: .internal, message: "malformed gRPC response from \(CurlErrorMapping.redacted(url)): \(error)")
            return 0
        }
        for message in messages {
            state.fields.withLock { $0.bufferedByteCount += message.count + GRPCFrame.headerByteCount }
            state.continuation.yield(message)
        }
        return bytes.count
    }

    /// `CURLOPT_HEADERFUNCTION`: collects the head (published to the call when it ends with its blank line)
    /// and, after it, the trailers. A head that is not HTTP/2 aborts the transfer.
    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = bytes[0..<end]
        if line.starts(with: "HTTP/".utf8) {
            let text = String(decoding: line, as: UTF8.self)
            let parts = text.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) : nil
            headFields = []
            headComplete = false
            statusLineSeen = true
            guard text.hasPrefix("HTTP/2") else {
                failure = FirestoreError(
                    code: .unavailable,
                    message:
                        "the server at \(CurlErrorMapping.redacted(url)) answered with \(parts.first ?? "HTTP/1"), "
                        + "but gRPC needs HTTP/2 (a proxy or server in the way that does not speak HTTP/2?)")
                return false
            }
            return true
        }
        if line.isEmpty {
            if statusLineSeen, !headComplete {
                headComplete = true
                let head = GRPCResponseHead(status: status ?? 0, headers: headFields)
                isGRPCResponse = head.status == 200 && head.isGRPC
                state.fields.withLock { $0.head = head }
            }
            return true
        }
        guard let colon = line.firstIndex(of: 0x3A) else { return true }
        let name = Self.trimmed(line[..<colon])
        let value = Self.trimmed(line[(colon + 1)...])
        guard !name.isEmpty else { return true }
        if headComplete {
            trailerFields.append(HTTPHeader(name, value))
        } else {
            headFields.append(HTTPHeader(name, value))
        }
        return true
    }

    // MARK: Loop operations (multi thread only)

    /// Whether the URL is `http://`, where HTTP/2 is spoken without TLS (h2c).
    var isCleartext: Bool { url.lowercased().hasPrefix("http://") }

    /// Whether the linked libcurl wrongly sets up HTTP/2 a second time when a prior-knowledge transfer reuses
    /// an h2c connection, failing it with "Error in the HTTP2 framing layer" (curl/curl#10634, fixed in
    /// 8.0.0 by curl/curl#10643; Debian 12 ships 7.88.1).
    private static let priorKnowledgeReuseIsBroken: Bool = {
        guard let info = ccurl_version_info() else { return true }
        return info.pointee.version_num < 0x08_00_00
    }()

    /// Sets how a cleartext transfer speaks HTTP/2, just before it starts (no effect for `https`).
    ///
    /// With a fixed libcurl: prior knowledge (RFC 9113 §3.3), reusing any live connection. With an affected
    /// one: while another cleartext call of the channel runs (so its h2c connection is live or being set
    /// up), this transfer asks for `CURL_HTTP_VERSION_2_0`, which multiplexes onto that connection without
    /// the faulty set-up (`CURLOPT_PIPEWAIT` waits for it); otherwise it uses prior knowledge on a fresh
    /// connection (`CURLOPT_FRESH_CONNECT`), never an idle cached one.
    /// - Parameter otherCleartextCallRunning: whether the channel runs another cleartext transfer.
    func chooseCleartextVersion(otherCleartextCallRunning: Bool) {
        guard isCleartext, Self.priorKnowledgeReuseIsBroken else { return }
        if otherCleartextCallRunning {
            _ = ccurl_easy_setopt_long(easy.raw, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2_0))
        } else {
            _ = ccurl_easy_setopt_long(easy.raw, CURLOPT_FRESH_CONNECT, 1)
        }
    }

    /// Unpauses what is paused: sending always (the read callback pauses again when nothing is queued),
    /// receiving unless the response stream is still full.
    func resume() {
        let receivePaused = state.fields.withLock { $0.receivePaused }
        let mask = receivePaused ? Int32(CCURL_PAUSE_RECV) : Int32(CCURL_PAUSE_CONT)
        _ = curl_easy_pause(easy.raw, mask)
    }

    /// The call's result once libcurl reports the transfer done with `code`: `nil` for `grpc-status` 0.
    func outcome(for code: CURLcode) -> FirestoreError? {
        if let failure { return failure }
        let location = CurlErrorMapping.redacted(url)
        let headStatus = headComplete ? GRPCStatus(headers: headFields) : nil
        let trailerStatus = GRPCStatus(headers: trailerFields)
        // A status the server sent is the call's result even when the stream was then reset: a server that
        // answers before the request is complete ends the stream with RST_STREAM, which libcurl reports as
        // an error (RFC 9113 §8.1).
        if code != CURLE_OK, status == 200, let named = trailerStatus ?? headStatus {
            return named.isOK && !decoder.hasPartialFrame ? nil : named.isOK ? truncated(location) : named.error
        }
        guard code == CURLE_OK else {
            var error = CurlErrorMapping.error(
                for: code, detail: easy.errorMessage, url: url,
                collector: CurlResponseCollector(maxBodyBytes: .max, cancellation: CurlCancellation()),
                configuration: CurlTransport.Configuration(
                    connectTimeout: configuration.connectTimeout, requestTimeout: 0,
                    caBundlePath: configuration.caBundlePath, proxy: configuration.proxy))
            if !headComplete,
                [CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING].contains(code)
            {
                error.message += "; the server may not speak HTTP/2, which gRPC needs"
            }
            return error
        }
        guard headComplete, let status else {
            return FirestoreError(code: .unavailable, message: "no gRPC response head from \(location)")
        }
        guard status == 200 else {
            if let named = trailerStatus ?? headStatus, !named.isOK {
                var error = named.error
                error.httpStatus = status
                return error
            }
            let body = String(decoding: foreignBody, as: UTF8.self)
            return FirestoreError(
                code: GRPCStatus.code(forHTTPStatus: status),
                message: "HTTP \(status) instead of a gRPC response from \(location)"
                    + (body.isEmpty ? "" : ": \(body)"),
                httpStatus: status)
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
        return decoder.hasPartialFrame ? truncated(location) : nil
    }

    private func truncated(_ location: String) -> FirestoreError {
        FirestoreError(
            code: .internal,
            message: "the gRPC response from \(location) ended inside a message (after \(decoder.byteCount) bytes)")
    }

    /// The trailers received so far.
    var trailers: [HTTPHeader] { trailerFields }

    /// New connections this transfer opened (`CURLINFO_NUM_CONNECTS`).
    var connectionsOpened: Int { easy.info(CURLINFO_NUM_CONNECTS) }

    /// `bytes` as UTF-8 text without leading and trailing spaces and tabs (RFC 9110 §5.5 optional white space).
    private static func trimmed(_ bytes: some Collection<UInt8>) -> String {
        let array = Array(bytes)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = array.firstIndex(where: { !isSpace($0) }), let last = array.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: array[first...last], as: UTF8.self)
    }
}
