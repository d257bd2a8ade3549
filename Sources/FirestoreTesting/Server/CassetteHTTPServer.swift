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
///   sections 3.2, 5.1, 5.2 and 6.3, `HTTPRequestHead`) gets a `400` and the connection is closed. Nothing
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
    private let listener: TCPListener
    /// Connections being served.

    /// Binds 127.0.0.1:`port` (0: a free port, see ``port``) and listens.
    /// - Parameters:
    ///   - transport: the replaying transport that answers every request.
    ///   - port: the port to bind, 0 for a free one.
    ///   - limits: what clients may use (``Limits/standard`` by default).
    /// - Throws: `FirestoreError` `.unavailable` naming the port and the system's reason.
    public init(transport: ReplayTransport, port: Int, limits: Limits = .standard) throws(FirestoreError) {
        self.transport = transport
        self.limits = limits
        listener = try TCPListener(host: "127.0.0.1", port: port)
        self.port = listener.port
    }

    /// Writes one line to stderr at once (a diagnostic for the person running the server).
    static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Accepts connections until the process ends; each is served on a thread of its own, at most
    /// ``Limits/maxConnections`` at once (one more is answered `503` and closed on the accepting thread). Blocks: call
    /// it on a thread of its own, never from a task (a thread of Swift's cooperative pool).
    public func run() -> Never {
        // Threads named "serve-cassette" (in /proc/PID/task/TID/comm and gdb; `ServeCassetteLimitsTests` counts them).
        listener.serveConnections(
            maxConnections: limits.maxConnections, sendTimeoutMilliseconds: limits.idleMilliseconds,
            threadName: "serve-cassette", refuse: refuse
        ) { [self] connection in serve(connection) }
    }

    /// Answers a connection over ``Limits/maxConnections`` with `503` (without waiting for a client that does not
    /// read) and closes it.
    private func refuse(_ connection: Int32) {
        let reason = "\(limits.maxConnections) connections are open, the most allowed (--max-connections)"
        Self.report("serve-cassette: refused a connection: \(reason)")
        HTTPSocket.refuse(connection, reason: reason)
    }

    // MARK: - One connection

    private func serve(_ connection: Int32) {
        var reader = HTTPSocketReader(descriptor: connection, limits: limits)
        while true {
            let request: HTTPParsedRequest
            switch reader.readRequest(continueWith: {
                HTTPSocket.write(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }) {
            case .closed:
                return
            case .refused(let refusal):
                Self.report("serve-cassette: refused a request: \(refusal.status) \(refusal.reason)")
                HTTPSocket.write(
                    connection,
                    HTTPSocket.responseBytes(
                        status: refusal.status, headers: [],
                        body: Data("\(HTTPSocket.reason(refusal.status)): \(refusal.reason)\n".utf8), keepAlive: false))
                HTTPSocket.drain(connection)
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
            let bytes = HTTPSocket.responseBytes(
                status: response.status, headers: response.headers, body: response.body,
                keepAlive: request.keepAlive)
            guard HTTPSocket.write(connection, bytes), request.keepAlive else { return }
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
}
