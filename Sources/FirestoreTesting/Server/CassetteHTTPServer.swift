import Dispatch
import FirestoreREST
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that answers every request from a ``ReplayTransport``, so any HTTP
/// client (curl, the official SDKs' REST clients, this package over `CurlTransport`) can replay a
/// cassette.
///
/// - One thread per connection, at most ``Limits/maxConnections`` (32) at once: one more is answered `503` and
///   closed; keep-alive; request bodies by `Content-Length` or chunked, with `Expect: 100-continue` answered.
/// - Limits (``Limits``): request head 64 KiB (`431`), body 10 MiB (`413`, before it is read), 30 s without a byte
///   (closed between requests, `408` inside one). A request whose framing is malformed or ambiguous (two
///   `Content-Length`s, `Content-Length` with `Transfer-Encoding`, a coding after `chunked`, no `Host`: RFC 9112
///   sections 3.2, 5.1, 5.2 and 6.3, `CassetteRequestHead`) gets a `400` and the connection is closed. Nothing
///   a client sends can crash the server.
/// - A request the cassette cannot answer gets HTTP 400 with a Firestore error body
///   (`{"error":{"code":400,"message":...,"status":"FAILED_PRECONDITION"}}`) naming the closest recorded
///   request; the message is also printed on stderr. A recorded transport failure (``Cassette/Failure``: a
///   timeout, a reset, a refused connection) closes the connection without a response.
public final class CassetteHTTPServer: Sendable {
    /// The transport every request is answered from.
    public let transport: ReplayTransport
    /// The port the server listens on (the one the system chose when it was made with port 0).
    public let port: Int
    /// What clients may use.
    public let limits: Limits
    private let listener: Int32
    /// Connections being served.
    private let openConnections = Mutex(0)

    /// Binds 127.0.0.1:`port` (0: a free port, see ``port``) and listens.
    /// - Parameters:
    ///   - transport: the replaying transport that answers every request.
    ///   - port: the port to bind, 0 for a free one.
    ///   - limits: what clients may use (``Limits/standard`` by default).
    /// - Throws: `FirestoreError` `.unavailable` naming the port and the system's reason.
    public init(transport: ReplayTransport, port: Int, limits: Limits = .standard) throws(FirestoreError) {
        self.transport = transport
        self.limits = limits
        #if canImport(Glibc)
            let socketType = Int32(SOCK_STREAM.rawValue)
        #else
            let socketType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, socketType, 0)
        guard descriptor >= 0 else { throw Self.systemError("socket", port: port) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let error = Self.systemError("bind", port: port)
            close(descriptor)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    /// Writes one line to stderr at once (a diagnostic for the person running the server).
    static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func systemError(_ call: String, port: Int) -> FirestoreError {
        FirestoreError(
            code: .unavailable,
            message: "cannot listen on 127.0.0.1:\(port): \(call): \(String(cString: strerror(errno)))")
    }

    /// Accepts connections until the process ends; each is served on a thread of its own, at most
    /// ``Limits/maxConnections`` at once (one more is answered `503` and closed on the accepting thread). Blocks: call
    /// it on a thread of its own, never from a task (a thread of Swift's cooperative pool).
    public func run() -> Never {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                usleep(10_000)  // the accept thread (see run()), never a thread of the cooperative pool
                continue
            }
            let admitted = openConnections.withLock { open -> Bool in
                guard open < limits.maxConnections else { return false }
                open += 1
                return true
            }
            guard admitted else {
                refuse(connection)
                continue
            }
            var timeout = timeval(
                tv_sec: limits.idleMilliseconds / 1000, tv_usec: Int(limits.idleMilliseconds % 1000) * 1000)
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            // A thread named "serve-cassette" (in /proc/PID/task/TID/comm and gdb; `ServeCassetteLimitsTests` counts
            // them); a connection the system has no thread for is closed, as one over the limit would be.
            let started = TransferThread.start(name: "serve-cassette") { [self] in
                serve(connection)
                close(connection)
                openConnections.withLock { $0 -= 1 }
            }
            if !started {
                close(connection)
                openConnections.withLock { $0 -= 1 }
            }
        }
    }

    /// Answers a connection over ``Limits/maxConnections`` with `503` (without waiting for a client that does not
    /// read) and closes it.
    private func refuse(_ connection: Int32) {
        let reason = "\(limits.maxConnections) connections are open, the most allowed (--max-connections)"
        Self.report("serve-cassette: refused a connection: \(reason)")
        let bytes = Self.responseBytes(
            status: 503, headers: [HTTPHeader("Retry-After", "1")], body: Data("Service Unavailable: \(reason)\n".utf8),
            keepAlive: false)
        _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        close(connection)
    }

    // MARK: - One connection

    private func serve(_ connection: Int32) {
        var reader = CassetteSocketReader(descriptor: connection, limits: limits)
        while true {
            let request: ParsedRequest
            switch reader.readRequest(continueWith: {
                Self.write(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }) {
            case .closed:
                return
            case .refused(let refusal):
                Self.report("serve-cassette: refused a request: \(refusal.status) \(refusal.reason)")
                Self.write(
                    connection,
                    Self.responseBytes(
                        status: refusal.status, headers: [],
                        body: Data("\(Self.reason(refusal.status)): \(refusal.reason)\n".utf8), keepAlive: false))
                Self.drain(connection)
                return
            case .request(let parsed):
                request = parsed
            }
            guard
                let response = answer(
                    HTTPRequest(
                        method: request.method, url: "http://127.0.0.1:\(port)" + request.target,
                        headers: request.headers, body: request.body.isEmpty ? nil : request.body))
            else { return }  // a recorded transport failure: the connection closes without a response
            let bytes = Self.responseBytes(
                status: response.status, headers: response.headers, body: response.body,
                keepAlive: request.keepAlive)
            guard Self.write(connection, bytes), request.keepAlive else { return }
        }
    }

    /// The cassette's answer; a replay error as a Firestore error response; `nil` for a recorded transport failure
    /// (``Cassette/Failure``: the client sees the connection close without a response).
    private func answer(_ request: HTTPRequest) -> HTTPResponse? {
        let outcome = Mutex<Result<HTTPResponse, FirestoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let transport = self.transport
        Task {
            do {
                let response = try await transport.send(request)
                outcome.withLock { $0 = .success(response) }
            } catch let error as FirestoreError {
                outcome.withLock { $0 = .failure(error) }
            } catch {
                outcome.withLock { $0 = .failure(FirestoreError(wrapping: error)) }
            }
            done.signal()
        }
        done.wait()  // a connection's own thread (see run()); the task runs on the cooperative pool
        switch outcome.withLock({ $0 }) {
        case .success(let response)?:
            return response
        case .failure(let error)?:
            Self.report("serve-cassette: \(error.code.name): \(error.message)")
            if error.transportFailure != nil { return nil }
            let body: JSONValue = [
                "error": ["code": 400, "message": .string(error.message), "status": .string(error.code.rawValue)]
            ]
            return HTTPResponse(
                status: 400, headers: [HTTPHeader("content-type", "application/json")],
                body: body.serialized())
        case nil:
            return HTTPResponse(status: 500, body: Data("no answer\n".utf8))
        }
    }

    static func responseBytes(status: Int, headers: [HTTPHeader], body: Data, keepAlive: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason(status))\r\n"
        let framing: Set<String> = [
            "content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive",
        ]
        for header in headers where !framing.contains(header.name.lowercased()) {
            let value = header.value.filter { $0 != "\r" && $0 != "\n" }
            head += "\(header.name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(head.utf8) + Array(body)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }

    /// Closes the sending side and reads what the client still sends, for at most a second, before the connection
    /// is closed: closing with unread bytes resets the connection, and a reset can discard the refusal just written
    /// before the client reads it (RFC 9112 section 9.6). On the connection's own thread.
    static func drain(_ descriptor: Int32) {
        shutdown(descriptor, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .seconds(1)
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while ContinuousClock.now < deadline {
            guard poll(&ready, 1, 100) >= 0 || errno == EINTR else { return }
            let count = scratch.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return }
        }
    }

    /// Writes every byte; `false` when the peer went away.
    @discardableResult
    static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }
}
