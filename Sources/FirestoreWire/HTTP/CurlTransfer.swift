internal import CCurl

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What one transfer produced: the response or the error, and how many new connections it opened
/// (`CURLINFO_NUM_CONNECTS`: 0 when it reused a kept-alive connection).
struct CurlTransferOutcome: Sendable {
    var result: Result<HTTPResponse, FirestoreError>
    var connectionsOpened: Int
}

/// One HTTP request carried out on one easy handle: sets the options, runs the blocking
/// `curl_easy_perform`, and turns the result into an ``HTTPResponse`` or a ``FirestoreError``.
struct CurlTransfer: Sendable {
    let request: HTTPRequest
    let configuration: CurlTransport.Configuration
    let cancellation: CurlCancellation
    /// `Name: value` lines for `CURLOPT_HTTPHEADER`, validated.
    private let headerLines: [String]

    /// Validates `request` (header names and values must not contain CR, LF or NUL; names must be non-empty
    /// and contain no colon) and prepares its header lines.
    /// - Throws: ``FirestoreError`` with code `.invalidArgument` for a malformed header.
    init(request: HTTPRequest, configuration: CurlTransport.Configuration, cancellation: CurlCancellation)
        throws(FirestoreError)
    {
        self.request = request
        self.configuration = configuration
        self.cancellation = cancellation
        headerLines = try Self.headerLines(for: request)
    }

    private static func headerLines(for request: HTTPRequest) throws(FirestoreError) -> [String] {
        var lines: [String] = []
        func forbidden(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D || byte == 0 }
        for header in request.headers {
            guard !header.name.isEmpty, !header.name.utf8.contains(where: { forbidden($0) || $0 == 0x3A }),
                !header.value.utf8.contains(where: forbidden)
            else {
                throw FirestoreError.invalidArgument("invalid HTTP header name or value: \(header.name)")
            }
            // "Name:" would tell libcurl to remove the header; "Name;" sends it with an empty value.
            lines.append(header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)")
        }
        // No "Expect: 100-continue" round trip before sending a body.
        if !request.headers.contains(where: { $0.matches("Expect") }) {
            lines.append("Expect:")
        }
        // libcurl would label a POST body application/x-www-form-urlencoded; send no type rather than a wrong one.
        if !request.headers.contains(where: { $0.matches("Content-Type") }) {
            lines.append("Content-Type:")
        }
        return lines
    }

    /// Runs the transfer on `handle`, blocking the calling thread until it ends. Never call this on the
    /// Swift cooperative pool. `handle` must be used by no other thread meanwhile; it is left with all
    /// options cleared (its connections stay open for reuse).
    func run(on handle: CurlEasyHandle) -> CurlTransferOutcome {
        run(
            on: handle,
            collector: CurlResponseCollector(
                maxBodyBytes: configuration.maxResponseBytes, cancellation: cancellation))
    }

    /// ``run(on:)`` with the body going to `collector` (a streamed response's sink, ``CurlBodyChannel``).
    func run(on handle: CurlEasyHandle, collector: CurlResponseCollector) -> CurlTransferOutcome {
        var headerList: UnsafeMutablePointer<curl_slist>?
        var bodyBuffer: UnsafeMutableRawBufferPointer?
        defer {
            handle.clearOptions()
            curl_slist_free_all(headerList)
            bodyBuffer?.deallocate()
        }
        let result: Result<HTTPResponse, FirestoreError>
        do throws(FirestoreError) {
            headerList = try makeHeaderList()
            bodyBuffer = copyBody()
            try configure(handle, collector: collector, headers: headerList, body: bodyBuffer)
            if cancellation.isCancelled {
                throw CurlErrorMapping.cancelled(url: request.url)
            }
            let code = withExtendedLifetime(collector) { handle.perform() }
            if code == CURLE_OK {
                result = .success(
                    HTTPResponse(
                        status: handle.info(CURLINFO_RESPONSE_CODE), headers: collector.headers, body: collector.body))
            } else {
                result = .failure(
                    CurlErrorMapping.error(
                        for: code, detail: handle.errorMessage, url: request.url, collector: collector,
                        configuration: configuration))
            }
        } catch {
            result = .failure(error)
        }
        return CurlTransferOutcome(result: result, connectionsOpened: handle.info(CURLINFO_NUM_CONNECTS))
    }

    /// The request headers as a libcurl list; the caller frees it with `curl_slist_free_all`.
    private func makeHeaderList() throws(FirestoreError) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in headerLines {
            guard let appended = line.withCString({ curl_slist_append(list, $0) }) else {
                curl_slist_free_all(list)
                throw FirestoreError(code: .resourceExhausted, message: "curl_slist_append failed (out of memory)")
            }
            list = appended
        }
        return list
    }

    /// Whether the method carries a body even when the request has none (sent as an empty body).
    private var methodTakesBody: Bool {
        switch request.method.uppercased() {
        case "POST", "PUT", "PATCH": return true
        default: return false
        }
    }

    /// A copy of the request body that outlives the transfer (`CURLOPT_POSTFIELDS` is not copied by libcurl),
    /// or `nil` when nothing is sent. Always at least one byte long so its address is never null.
    private func copyBody() -> UnsafeMutableRawBufferPointer? {
        guard request.body != nil || methodTakesBody else { return nil }
        let body = request.body ?? Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(body.count, 1), alignment: 1)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        _ = body.copyBytes(to: buffer)
        return buffer
    }

    private func configure(
        _ handle: CurlEasyHandle, collector: CurlResponseCollector, headers: UnsafeMutablePointer<curl_slist>?,
        body: UnsafeMutableRawBufferPointer?
    ) throws(FirestoreError) {
        try handle.reset()
        try handle.set(CURLOPT_NOSIGNAL, 1)
        try handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try handle.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try handle.set(CURLOPT_ACCEPT_ENCODING, "")
        try handle.set(CURLOPT_HTTP_CONTENT_DECODING, 1)
        try handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try handle.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        try handle.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(configuration.requestTimeout))
        try handle.set(CURLOPT_USERAGENT, configuration.userAgent)
        try handle.set(CURLOPT_URL, request.url)
        try configureConnection(handle)
        if !request.isIdempotent {
            // libcurl resends a request by itself when a reused connection closes before any response byte
            // arrives; for a commit whose response was lost that applies it twice. A new connection is never
            // retried.
            try handle.set(CURLOPT_FRESH_CONNECT, 1)
        }

        let context = Unmanaged.passUnretained(collector).toOpaque()
        try handle.set(CURLOPT_WRITEDATA, pointer: context)
        try handle.set(writeFunction: { data, size, count, context in
            guard let context else { return 0 }
            let collector = Unmanaged<CurlResponseCollector>.fromOpaque(context).takeUnretainedValue()
            let total = size * count
            let accepted = collector.appendBody(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : total))
            return accepted ? total : 0
        })
        try handle.set(CURLOPT_HEADERDATA, pointer: context)
        try handle.set(headerFunction: { data, size, count, context in
            guard let context else { return 0 }
            let collector = Unmanaged<CurlResponseCollector>.fromOpaque(context).takeUnretainedValue()
            let total = size * count
            collector.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : total))
            return total
        })
        try handle.set(CURLOPT_NOPROGRESS, 0)
        try handle.set(CURLOPT_XFERINFODATA, pointer: context)
        try handle.set(progressFunction: { context, _, _, _, _ in
            guard let context else { return 0 }
            let collector = Unmanaged<CurlResponseCollector>.fromOpaque(context).takeUnretainedValue()
            return collector.shouldAbort() ? 1 : 0
        })

        let method = request.method.uppercased()
        switch method {
        case "GET":
            try handle.set(CURLOPT_HTTPGET, 1)
        case "HEAD":
            try handle.set(CURLOPT_NOBODY, 1)
        case "POST":
            break  // POSTFIELDS below makes it a POST
        default:
            try handle.set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let body {
            let length = request.body?.count ?? 0
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(length))
            try handle.set(CURLOPT_POSTFIELDS, pointer: body.baseAddress)
            if method == "GET" {
                // POSTFIELDS switched the method to POST; a GET with a body keeps its own verb.
                try handle.set(CURLOPT_CUSTOMREQUEST, request.method)
            }
        }
        try handle.set(CURLOPT_HTTPHEADER, list: headers)
    }

    /// Connection-level settings: TLS verification (always on), trust store, low-speed abort, proxy, and one
    /// cached connection per handle (so a pool of N handles holds at most N connections).
    private func configureConnection(_ handle: CurlEasyHandle) throws(FirestoreError) {
        try handle.set(CURLOPT_SSL_VERIFYPEER, 1)
        try handle.set(CURLOPT_SSL_VERIFYHOST, 2)
        try handle.set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        if let caBundlePath = configuration.caBundlePath {
            try handle.set(CURLOPT_CAINFO, caBundlePath)
            try handle.set(CURLOPT_CAPATH, pointer: nil)  // the bundle replaces the system store
        }
        if configuration.lowSpeedLimit > 0, configuration.lowSpeedTime > 0 {
            try handle.set(CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedLimit)
            try handle.set(CURLOPT_LOW_SPEED_TIME, Self.wholeSeconds(configuration.lowSpeedTime))
        }
        if let proxy = configuration.proxy {
            try handle.set(CURLOPT_PROXY, proxy)  // "" disables the environment's proxies
        }
        try handle.set(CURLOPT_MAXCONNECTS, 1)
        // A connection that died without a word (``CurlTransport/ConnectionHealth``): TCP keepalive probes after
        // `tcpKeepaliveIdle` s idle, then every 10 s; a connection older than `maxConnectionAge` is not reused.
        try handle.set(CURLOPT_TCP_KEEPALIVE, 1)
        try handle.set(CURLOPT_TCP_KEEPIDLE, Self.wholeSeconds(configuration.health.tcpKeepaliveIdle))
        try handle.set(CURLOPT_TCP_KEEPINTVL, 10)
        try handle.set(CURLOPT_MAXLIFETIME_CONN, Self.wholeSeconds(configuration.health.maxConnectionAge))
    }

    /// `seconds` rounded up to whole seconds (at least 1), for libcurl's second-resolution options.
    static func wholeSeconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return seconds >= 1e9 ? 1_000_000_000 : max(1, Int(seconds.rounded(.up)))
    }

    /// `seconds` as whole milliseconds for a libcurl `*_MS` option, rounded up; `0` (libcurl's "no limit" or
    /// "default") for zero, negative, NaN or infinite values.
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        let milliseconds = (seconds * 1000).rounded(.up)
        return milliseconds >= 1e12 ? 1_000_000_000_000 : Int(milliseconds)
    }
}
