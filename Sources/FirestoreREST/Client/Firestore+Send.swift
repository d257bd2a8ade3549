import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Firestore {
    /// Sends `request` until it succeeds or may not be retried, and returns the parsed JSON of the 2xx body and
    /// the body's size in bytes (after decompression).
    ///
    /// Each attempt adds the `Authorization` header (``sendAuthorized(_:)``: audience checks, one refresh after a
    /// `401`). A failed attempt is retried per ``retryPolicy`` when its error code is retryable and
    /// - the call is `idempotent` (then also for a 2xx stream whose body holds an `{"error"}` element), or
    /// - nothing reached the server (connection or DNS failure, or the token could not be obtained).
    ///
    /// A response over the transport's size cap is never retried.
    ///
    /// - Parameters:
    ///   - request: the request without `Authorization`.
    ///   - what: `METHOD resource`, for error messages.
    ///   - idempotent: whether sending the request twice is harmless.
    /// - Throws: ``FirestoreError``: the last attempt's error (the server's, decoded from the body, or the
    ///   transport's); `.internal` when a 2xx body is not JSON; `.cancelled` when the task is cancelled during a
    ///   back-off wait.
    func perform(_ request: HTTPRequest, what: String, idempotent: Bool) async throws -> (json: JSONValue, bytes: Int) {
        let (json, bytes) = try await perform(request, what: what, idempotent: idempotent) {
            (data) throws(FirestoreError) -> JSONValue in
            let json = try Self.parseBody(HTTPResponse(status: 200, body: data), what: what)
            if idempotent, case .array = json, let element = FirestoreError.findErrorObject(in: json) {
                throw FirestoreError.decode(errorObject: element, httpStatus: 200)
            }
            return json
        }
        return (json, bytes)
    }

    /// ``perform(_:what:idempotent:)`` with the 2xx body decoded by `decode`; an error `decode` throws (an
    /// `{"error"}` element of a stream, a malformed body) is retried like any failed attempt when the call is
    /// idempotent and the code retryable.
    func perform<Decoded>(
        _ request: HTTPRequest, what: String, idempotent: Bool, decode: (Data) throws(FirestoreError) -> Decoded
    ) async throws -> (value: Decoded, bytes: Int) {
        // What the request sent that a server could echo back into an error (the Authorization token above all).
        var credentials = request.credentialValues
        let method = Self.methodName(of: request)
        return try await withRetries(method: method, cancelled: CurlErrorMapping.cancelled(url: request.url)) {
            attempt in
            let started = ContinuousClock.now
            do {
                let (response, sent) = try await sendAuthorized(request)
                credentials.formUnion(sent.credentialValues)
                observe(
                    method: method, status: "\(response.status)", attempt: attempt, bytes: response.body.count,
                    since: started)
                guard (200..<300).contains(response.status) else {
                    var error = FirestoreError(
                        status: response.status, body: response.body, known: Array(credentials))
                    if error.message.isEmpty || response.body.isEmpty {
                        error.message = FirestoreError.noMessage(asked: what, body: response.body, known: credentials)
                    }
                    error.retryAfter = response.header("Retry-After").flatMap(FirestoreError.parseRetryAfter)
                    throw FailedAttempt(
                        error: error, mayRetry: idempotent, serverDelay: RetryPolicy.serverDelay(of: response))
                }
                return (try decode(response.body), response.body.count)
            } catch let error as FirestoreError {
                observe(method: method, status: "error", attempt: attempt, bytes: 0, since: started)
                throw FailedAttempt(
                    error: error.redacting(known: credentials), mayRetry: idempotent || error.requestWasNotSent)
            }
        }
    }

    /// Sends `request` with this client's credentials. When the server answers `401` and the credentials can
    /// fetch a new token (``Credentials/invalidate(refusedHeader:)`` returns `true`), the request is sent once
    /// more with the new token; a second `401` is returned as it is.
    /// - Throws: ``FirestoreError``: `.failedPrecondition` before sending anything when the credentials may not
    ///   go to this server (see ``authorizationHeader(for:)``); the credentials' error (marked as not sent);
    ///   the transport's error; `.cancelled` once the client is shut down (``shutdown()``).
    /// - Returns: the response and the request as sent (with its `Authorization` header), whose credentials an
    ///   error message built from the response must not show.
    func sendAuthorized(_ request: HTTPRequest) async throws -> (response: HTTPResponse, sent: HTTPRequest) {
        try await credentials.refreshingOnce {
            try lifecycle.check()
            let (attempt, authorization) = try await authorized(request)
            let transport = transport
            let response = try await lifecycle.guarded { try await transport.send(attempt) }
            return ((response, attempt), response.status == 401 ? authorization : nil)
        }
    }

    /// `request` with the `Authorization` header (``authorizationHeader(for:)``) and the quota project's
    /// `x-goog-user-project`; also the authorization value, for the refresh after a `401`.
    /// - Throws: the error of ``authorizationHeader(for:)``, marked as not sent.
    func authorized(_ request: HTTPRequest) async throws -> (request: HTTPRequest, authorization: String?) {
        var attempt = request
        let authorization: String?
        do {
            authorization = try await authorizationHeader(for: request.url)
        } catch var error as FirestoreError {
            error.requestWasNotSent = true
            throw error
        }
        if let authorization {
            attempt.headers.append(HTTPHeader("Authorization", authorization))
        }
        if let quotaProject = credentials.quotaProjectID {
            attempt.headers.append(HTTPHeader("x-goog-user-project", quotaProject))
        }
        return (attempt, authorization)
    }

    /// The `Authorization` header for a request to `url`, after checking that the credentials may go there
    /// (`AuthorizationPathTests`): the emulator's owner token only to an emulator, real credentials never to an
    /// emulator and never over plain `http` to a host other than loopback.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` naming the credentials' type and the server when the
    ///   check fails; otherwise the credentials' own error.
    func authorizationHeader(for url: String) async throws -> String? {
        let audience = credentials.audience
        let kind = String(describing: type(of: credentials))
        guard audience.allows(emulator: isEmulator) else {
            let location = Redaction.url(baseURL)
            if isEmulator {
                throw FirestoreError(
                    code: .failedPrecondition,
                    message: "refusing to send production credentials (\(kind)) to the emulator at \(location); "
                        + "an emulator gets EmulatorOwnerCredentials or emulator-audience credentials")
            }
            throw FirestoreError(
                code: .failedPrecondition,
                message: "refusing to send emulator credentials (\(kind)) to \(location), which is not an emulator")
        }
        if audience == .production, !isEmulator, !Self.isSafeForCredentials(url) {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "refusing to send credentials (\(kind)) over plain http to \(Redaction.url(url)); "
                    + "use https")
        }
        return try await credentials.authorizationHeader()
    }

    /// Whether a bearer token may travel to `url`: `https`, or `http` to a loopback address (`localhost`,
    /// `127.x.x.x`, `[::1]`), where nothing crosses a network.
    static func isSafeForCredentials(_ url: String) -> Bool {
        let lowered = url.lowercased()
        if lowered.hasPrefix("https://") { return true }
        guard lowered.hasPrefix("http://") else { return false }
        let rest = lowered.dropFirst("http://".count)
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.prefix { $0 != "]" }.dropFirst()
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return host == "localhost" || host == "::1" || (host.hasPrefix("127.") && host.split(separator: ".").count == 4)
    }

    /// Whether sending the request twice is harmless: every `GET` (get, list), and a `POST` of `:runQuery`,
    /// `:batchGet`, `:runAggregationQuery` or `:listCollectionIds` whose body does not begin a transaction
    /// (`newTransaction`). Writes, `:commit`, `:beginTransaction` and `:rollback` are not.
    static func isIdempotent(method: String, resource: String, body: JSONValue?) -> Bool {
        switch method.uppercased() {
        case "GET", "HEAD": return true
        case "POST":
            guard body?["newTransaction"] == nil, let colon = resource.lastIndex(of: ":") else { return false }
            let verb = resource[resource.index(after: colon)...]
            return ["runQuery", "batchGet", "runAggregationQuery", "listCollectionIds"].contains(String(verb))
        default: return false
        }
    }

    /// The JSON of a 2xx body (`{}` for an empty one).
    /// - Throws: ``FirestoreError`` `.internal` naming `what` and the parser's byte offset.
    static func parseBody(_ response: HTTPResponse, what: String) throws(FirestoreError) -> JSONValue {
        if response.body.isEmpty { return .object([:]) }
        do {
            return try JSONValue.parse(response.body)
        } catch {
            throw FirestoreError(
                code: .internal, message: "\(what): response is not JSON: \(error)", httpStatus: response.status)
        }
    }

    /// The REST method a request calls: the part after `:` in its path (`runQuery`, `commit`), else its HTTP method
    /// in lower case (`get`, `patch`, `delete`).
    static func methodName(of request: HTTPRequest) -> String {
        let path = request.url.split(separator: "?").first ?? ""
        if let last = path.split(separator: "/").last, let colon = last.lastIndex(of: ":") {
            return String(last[last.index(after: colon)...])
        }
        return request.method.lowercased()
    }

    /// Reports one attempt to the log handler and the metrics factory: `status` is the HTTP status over REST, the
    /// gRPC status code name over gRPC (`OK`, `UNAVAILABLE`), `error` when no answer came.
    func observe(
        method: String, status: String, attempt: Int, bytes: Int, since started: ContinuousClock.Instant
    ) {
        let elapsed = ContinuousClock.now - started
        observability.count("firestore_requests_total", [("method", method), ("status", status)])
        observability.time("firestore_request_duration", [("method", method)], elapsed)
        if bytes > 0 { observability.count("firestore_response_bytes_total", [("method", method)], by: Int64(bytes)) }
        observability.log(
            .debug, "\(method) answered \(status)",
            metadata: logMetadata.merging([
                "firestore.method": method, "firestore.status": status, "firestore.attempt": "\(attempt)",
                "firestore.duration_ms":
                    "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
            ]) { $1 })
    }
}
