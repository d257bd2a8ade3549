import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The HTTP/1.1 server of `firestore-feed serve`: `GET /events` is the live list's `text/event-stream`
/// (``EventStreamConnection``), `GET /` the page that shows it (``LiveListPage``).
///
/// - One thread per connection, at most ``Options/maxClients`` at once: one more is answered `503` (with
///   `Retry-After: 1`) and closed, without a thread. Every response but the stream closes its connection.
/// - With a ``Options/token``, both paths need it: `Authorization: Bearer TOKEN`, or `?token=TOKEN` (an
///   `EventSource` cannot set headers); without it, `401`.
/// - `GET /events` resumes after `Last-Event-ID` (the header a reconnecting `EventSource` sends), or after
///   `?lastEventId=` (a page that opens a new `EventSource`).
/// - Request heads are read by ``HTTPSocketReader`` (64 KiB at most, RFC 9112 framing; a malformed one gets `400`).
final class LiveListHTTPServer: Sendable {
    /// What the server allows.
    struct Options: Sendable {
        /// The bearer token clients must send, or `nil` for none.
        var token: String?
        /// The most connections at once (event streams and page loads).
        var maxClients: Int
        /// The events a client may fall behind before it is cut (the list's `clientBuffer`).
        var clientBuffer: Int
        /// The page of `GET /` (``LiveListPage/html(title:)``).
        var page: String
    }

    let list: LiveList
    let options: Options
    private let listener: TCPListener
    /// Head, body and idle limits of a request (the connection limit is ``Options/maxClients``).
    private let limits = CassetteHTTPServer.Limits(maxHeadBytes: 64 * 1024, maxBodyBytes: 64 * 1024)

    /// The address clients connect to.
    var host: String { listener.host }
    /// The port listened on (the system's choice for port 0).
    var port: Int { listener.port }

    /// Binds `host`:`port` and listens.
    /// - Throws: `FirestoreError` `.unavailable` (the port is taken) or `.invalidArgument` (not an IPv4 address).
    init(list: LiveList, host: String, port: Int, options: Options) throws(FirestoreError) {
        self.list = list
        self.options = options
        listener = try TCPListener(host: host, port: port, backlog: 1024)
    }

    /// Accepts connections until the process ends, each served on a thread of its own. Blocks: on a thread of its
    /// own, never a thread of the cooperative pool.
    func run() -> Never {
        listener.serveConnections(
            maxConnections: options.maxClients, sendTimeoutMilliseconds: limits.idleMilliseconds, threadName: "serve",
            refuse: refuse
        ) { [self] connection in serve(connection) }
    }

    /// Answers a connection over the limit with `503` (without waiting for a client that does not read) and closes it.
    private func refuse(_ connection: Int32) {
        HTTPSocket.refuse(
            connection, reason: "\(options.maxClients) clients are connected, the most allowed (--max-clients)")
    }

    /// Reads one request and answers it: the stream, the page or an error.
    private func serve(_ connection: Int32) {
        var reader = HTTPSocketReader(descriptor: connection, limits: limits)
        let request: HTTPParsedRequest
        switch reader.readRequest(continueWith: {
            HTTPSocket.write(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }) {
        case .closed:
            return
        case .refused(let refusal):
            answer(connection, refusal.status, "\(refusal.reason)\n")
            HTTPSocket.drain(connection)
            return
        case .request(let parsed):
            request = parsed
        }
        let route = ServeRoute(request)
        guard request.method == "GET" || request.method == "HEAD" else {
            answer(connection, 405, "only GET is served\n", headers: [HTTPHeader("Allow", "GET, HEAD")])
            return
        }
        guard route.path == "/" || route.path == "/events" else {
            answer(connection, 404, "\(route.path) is not served: GET / is the page, GET /events the stream\n")
            return
        }
        if let token = options.token, !route.carries(token: token) {
            answer(
                connection, 401,
                "no token, or not serve's --token: send Authorization: Bearer TOKEN, or ?token=TOKEN\n",
                headers: [HTTPHeader("WWW-Authenticate", #"Bearer realm="firestore-feed serve""#)])
            return
        }
        if route.path == "/" {
            answer(
                connection, 200, request.method == "HEAD" ? "" : options.page,
                headers: [
                    HTTPHeader("Content-Type", "text/html; charset=utf-8"), HTTPHeader("Cache-Control", "no-store"),
                ])
            return
        }
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-store\r\n"
            + "X-Accel-Buffering: no\r\nConnection: close\r\n\r\n"
            // An EventSource waits 1 s before it reconnects (browsers' default is about 3 s).
            + "retry: 1000\n\n"
        guard HTTPSocket.write(connection, Array(head.utf8)), request.method == "GET" else { return }
        let clientBuffer = options.clientBuffer
        EventStreamConnection.serve(
            list, lastEventID: route.lastEventID, on: connection, clientBuffer: clientBuffer,
            onCut: {
                Console.error("serve: cut a client more than \(clientBuffer) events behind (--client-buffer)")
            })
    }

    /// Writes a whole response with `body` and closes the connection's sending side.
    private func answer(_ connection: Int32, _ status: Int, _ body: String, headers: [HTTPHeader] = []) {
        let headers =
            headers.contains { $0.matches("content-type") }
            ? headers : headers + [HTTPHeader("Content-Type", "text/plain; charset=utf-8")]
        HTTPSocket.write(
            connection,
            HTTPSocket.responseBytes(status: status, headers: headers, body: Data(body.utf8), keepAlive: false))
    }
}
