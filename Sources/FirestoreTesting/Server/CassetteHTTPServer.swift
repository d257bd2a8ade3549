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
/// client (curl, the official SDKs' REST clients, this package over ``CurlTransport``) can replay a
/// cassette.
///
/// - One thread per connection; keep-alive; request bodies by `Content-Length` or chunked, with
///   `Expect: 100-continue` answered.
/// - Limits: request head 64 KiB, body 64 MiB; a request beyond them or malformed gets a 400 and the
///   connection is closed. Nothing a client sends can crash the server.
/// - A request the cassette cannot answer gets HTTP 400 with a Firestore error body
///   (`{"error":{"code":400,"message":...,"status":"FAILED_PRECONDITION"}}`) naming the closest recorded
///   request; the message is also printed on stderr. A recorded transport failure (``Cassette/Failure``: a
///   timeout, a reset, a refused connection) closes the connection without a response.
public final class CassetteHTTPServer: Sendable {
    /// The largest request head (request line and headers) accepted, in bytes.
    public static let maxHeadBytes = 64 * 1024
    /// The largest request body accepted, in bytes.
    public static let maxBodyBytes = 64 * 1024 * 1024

    /// The transport every request is answered from.
    public let transport: ReplayTransport
    /// The port the server listens on (the one the system chose when it was made with port 0).
    public let port: Int
    private let listener: Int32

    /// Binds 127.0.0.1:`port` (0: a free port, see ``port``) and listens.
    /// - Throws: ``FirestoreError`` `.unavailable` naming the port and the system's reason.
    public init(transport: ReplayTransport, port: Int) throws(FirestoreError) {
        self.transport = transport
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

    /// Accepts connections until the process ends; each is served on a thread of its own. Blocks: call it on a
    /// thread of its own, never from a task (a thread of Swift's cooperative pool).
    public func run() -> Never {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                usleep(10_000)  // the accept thread (see run()), never a thread of the cooperative pool
                continue
            }
            let thread = Thread { [self] in
                serve(connection)
                close(connection)
            }
            thread.name = "serve-cassette"
            thread.start()
        }
    }

    // MARK: - One connection

    private func serve(_ connection: Int32) {
        var reader = SocketReader(descriptor: connection)
        while true {
            let request: ParsedRequest
            switch reader.readRequest(continueWith: {
                Self.write(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }) {
            case .closed:
                return
            case .malformed(let reason):
                Self.report("serve-cassette: bad request: \(reason)")
                Self.write(
                    connection,
                    Self.responseBytes(
                        status: 400, headers: [], body: Data("bad request: \(reason)\n".utf8), keepAlive: false))
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
                outcome.withLock { $0 = .failure(FirestoreError(code: .unknown, message: "\(error)")) }
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
        case 409: return "Conflict"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
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

/// A request as read from the socket.
struct ParsedRequest {
    var method: String
    var target: String
    var headers: [HTTPHeader]
    var body: Data
    var keepAlive: Bool
}

/// Reads HTTP/1.1 requests from a socket, buffering what arrives past one request for the next.
struct SocketReader {
    enum Outcome {
        case request(ParsedRequest)
        case closed
        case malformed(String)
    }

    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Reads more bytes into the buffer; `false` at end of stream or on an error.
    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }

    mutating func readRequest(continueWith sendContinue: () -> Void) -> Outcome {
        var headEnd: Int?
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer) {
                headEnd = end
                break
            }
            if buffer.count > CassetteHTTPServer.maxHeadBytes { return .malformed("request head over 64 KiB") }
            guard fill() else {
                return buffer.isEmpty ? .closed : .malformed("connection closed inside a request head")
            }
        }
        guard let headEnd else { return .closed }
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let firstLine = lines.removeFirst()
        let requestLine = firstLine.split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1."), requestLine[1].hasPrefix("/") else {
            return .malformed("request line \"\(firstLine.prefix(200))\" is not METHOD /TARGET HTTP/1.x")
        }
        var headers: [HTTPHeader] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .malformed("header line without ':'") }
            headers.append(
                HTTPHeader(
                    String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        func header(_ name: String) -> String? { headers.first { $0.matches(name) }?.value }
        let connection = header("connection")?.lowercased() ?? ""
        let keepAlive = requestLine[2] == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        if header("expect")?.lowercased() == "100-continue" { sendContinue() }
        var body: [UInt8] = []
        if header("transfer-encoding")?.lowercased().contains("chunked") == true {
            switch readChunked() {
            case .success(let bytes): body = bytes
            case .failure(let reason): return .malformed(reason.text)
            }
        } else if let lengthText = header("content-length") {
            guard let length = Int(lengthText), length >= 0, length <= CassetteHTTPServer.maxBodyBytes else {
                return .malformed("Content-Length \"\(lengthText)\" is not a size up to 64 MiB")
            }
            while buffer.count < length {
                guard fill() else { return .malformed("connection closed inside a request body") }
            }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        }
        return .request(
            ParsedRequest(
                method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Data(body),
                keepAlive: keepAlive))
    }

    struct Reason: Error { let text: String }

    private mutating func readChunked() -> Result<[UInt8], Reason> {
        var body: [UInt8] = []
        while true {
            var lineEnd = Self.find([13, 10], in: buffer)
            while lineEnd == nil {
                guard buffer.count < 1024, fill() else { return .failure(Reason(text: "bad chunk size line")) }
                lineEnd = Self.find([13, 10], in: buffer)
            }
            guard let end = lineEnd else { return .failure(Reason(text: "bad chunk size line")) }
            let sizeText = String(decoding: buffer[0..<end], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
                body.count + size <= CassetteHTTPServer.maxBodyBytes
            else { return .failure(Reason(text: "bad chunk size \"\(sizeText)\"")) }
            buffer.removeFirst(end + 2)
            if size == 0 {
                // Trailers end with an empty line.
                while true {
                    while Self.find([13, 10], in: buffer) == nil {
                        guard buffer.count < CassetteHTTPServer.maxHeadBytes, fill() else {
                            return .failure(Reason(text: "connection closed inside chunk trailers"))
                        }
                    }
                    guard let trailerEnd = Self.find([13, 10], in: buffer) else { continue }
                    buffer.removeFirst(trailerEnd + 2)
                    if trailerEnd == 0 { return .success(body) }
                }
            }
            while buffer.count < size + 2 {
                guard fill() else { return .failure(Reason(text: "connection closed inside a chunk")) }
            }
            body.append(contentsOf: buffer[0..<size])
            buffer.removeFirst(size + 2)
        }
    }

    /// The offset of the first occurrence of `pattern` in `bytes`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
            if Array(bytes[start..<start + pattern.count]) == pattern { return start }
        }
        return nil
    }
}
