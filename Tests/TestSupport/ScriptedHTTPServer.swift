import FirestoreREST
import Foundation

/// An HTTP/1.1 server on 127.0.0.1 (an ephemeral port), run as a `python3` child process, that answers the n-th
/// request with the n-th scripted answer, for tests of what the client makes of responses shaped as the REST
/// reference shows (explain metrics) and of bodies that arrive slowly or break off (streamed results).
///
/// Every answer is sent with `Transfer-Encoding: chunked`, one HTTP chunk per scripted chunk, flushed at once,
/// with `delay` seconds after each; `cut` ends the body without its last chunk and closes the connection (a
/// stream that fails mid-way); `holdAfter` N stops after the N-th chunk until ``release()`` (a body the test knows
/// is still being written). A request past the script gets a 503 `UNAVAILABLE` error body. `GET /__requests`
/// lists the requests received (method, path, body, chunks written, whether writing failed because the client
/// went away) without counting as one; `POST /__release` lets every held answer go on.
package final class ScriptedHTTPServer: @unchecked Sendable {
    /// One scripted answer.
    package struct Answer: Encodable, Sendable {
        package var status: Int
        package var chunks: [String]
        package var delay: Double
        package var cut: Bool
        package var holdAfter: Int?

        /// `status` with the body sent as `chunks`, `delay` seconds after each, cut off before its end when `cut`,
        /// held after `holdAfter` chunks until ``ScriptedHTTPServer/release()``.
        package init(status: Int = 200, chunks: [String], delay: Double = 0, cut: Bool = false, holdAfter: Int? = nil) {
            self.status = status
            self.chunks = chunks
            self.delay = delay
            self.cut = cut
            self.holdAfter = holdAfter
        }
    }

    /// One request as the server saw it.
    package struct Received: Decodable, Sendable, Equatable {
        package var method: String
        package var path: String
        package var body: String
        /// How many of the answer's chunks were written before the answer ended.
        package var chunksWritten: Int
        /// Whether writing the answer failed because the client had closed the connection.
        package var aborted: Bool
    }

    private static let script = #"""
        import json, socket, sys, threading, time, signal
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        with open(sys.argv[1]) as f:
            answers = json.load(f)
        lock = threading.Lock()
        released = threading.Event()
        received = []
        exhausted = {"status": 503, "delay": 0, "cut": False,
                     "chunks": ['{"error":{"code":503,"message":"script exhausted","status":"UNAVAILABLE"}}']}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.path == "/__release":
                    released.set()
                    self.send_response(204)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.path == "/__requests":
                    with lock:
                        data = json.dumps(received).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                with lock:
                    index = len(received)
                    record = {"method": self.command, "path": self.path, "body": body.decode("utf-8", "replace"),
                              "chunksWritten": 0, "aborted": False}
                    received.append(record)
                answer = answers[index] if index < len(answers) else exhausted
                try:
                    self.send_response(answer["status"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for chunk in answer["chunks"]:
                        data = chunk.encode()
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                        with lock:
                            record["chunksWritten"] += 1
                        if answer.get("holdAfter") == record["chunksWritten"]:
                            released.wait()
                        if answer["delay"]:
                            time.sleep(answer["delay"])
                    if answer["cut"]:
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    with lock:
                        record["aborted"] = True
                    self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass

        \#(ParentWatch.python)

        server = Server(("127.0.0.1", 0), Handler)
        _watch_parent()
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    private let child: PythonServerProcess
    private let scriptFile: URL

    /// The TCP port the server listens on.
    package var port: Int { child.port }

    /// `http://127.0.0.1:<port>`.
    package var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server with `answers` and waits until it listens. Blocks the calling thread: use ``with(_:_:)``.
    package init(_ answers: [Answer]) throws {
        scriptFile = FileManager.default.temporaryDirectory.appendingPathComponent("scripted-\(UUID().uuidString).json")
        try JSONEncoder().encode(answers).write(to: scriptFile)
        child = try PythonServerProcess(.inline(Self.script), arguments: [scriptFile.path])
    }

    /// Stops the server process without waiting for it and removes the script file.
    package func stop() {
        child.stop()
        try? FileManager.default.removeItem(at: scriptFile)
    }

    /// Runs `body` with a fresh server answering `answers`, and stops the server afterwards.
    package static func with<T>(_ answers: [Answer], _ body: (ScriptedHTTPServer) async throws -> T) async throws -> T {
        let server = try await BlockingWork.run { try ScriptedHTTPServer(answers) }
        defer { server.stop() }
        return try await body(server)
    }

    /// Lets every answer held by `holdAfter` go on.
    package func release() async throws {
        _ = try await CurlTransport().send(HTTPRequest(method: "POST", url: baseURL + "/__release"))
    }

    /// The requests received so far, in order.
    package func received() async throws -> [Received] {
        let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: baseURL + "/__requests"))
        return try JSONDecoder().decode([Received].self, from: response.body)
    }

    /// A client of project `p` on this server (no credentials), through `transport`, its retry waits on `clock`.
    package func firestore(
        transport: any HTTPTransport = CurlTransport(), clock: any Clock<Duration> = ContinuousClock()
    ) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: baseURL + "/v1/", credentials: NoCredentials(),
            transport: transport, isEmulator: false, retryPolicy: RetryPolicy(clock: clock))
    }
}
