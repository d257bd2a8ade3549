import FirestoreREST
import Foundation

/// A loopback server (a `python3` child process on 127.0.0.1, an ephemeral port) that plays Google's OAuth 2
/// token endpoint, the GCE metadata server, a Firestore document endpoint and an HTTP proxy, and logs what it
/// received. With a certificate it speaks https instead (for the TLS tests).
///
/// Routes:
/// - `POST /token`: issues `ya29.token-N` (N counts tokens issued by any route) with `expires_in` 3599 after
///   a 300 ms pause (so concurrent callers overlap), logging the form fields under `token_requests`
/// - `POST /token-invalid`: 400 `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`
/// - `POST /token-echo`: 400 `{"error":"invalid_request","error_description":"cannot use <the form as received>"}`
///   (a server that echoes the request, secrets and all)
/// - `GET /computeMetadata/v1/instance/service-accounts/default/token`: like `/token`, but 403 without
///   `Metadata-Flavor: Google`; logged under `metadata_requests`
/// - `GET /computeMetadata/v1/project/project-id`: `demo-metadata`
/// - `GET /v1/<document name>`: 200 with the document `{"name","fields":{"ok":true},...}`, logging path,
///   `Authorization` and `x-goog-user-project` under `document_requests`; a name containing `/strict/` gets 401
///   UNAUTHENTICATED when the token is `ya29.token-1`, one containing `/always401/` always gets 401, one containing
///   `/echo/` gets 403 PERMISSION_DENIED naming the `Authorization` header it came with and its token
/// - `GET /headers`: the request headers as a JSON object (names lower-cased)
/// - `GET /stall`: 200 `too late` after 120 s (longer than any test waits: a loaded suite once took 20 s to get
///   from starting a stalled request to cancelling it)
/// - `GET /pause`: 200 `connection N` after 200 ms (N numbers the server's TCP connections from 1)
/// - a request in absolute form (`GET http://host/path`, as sent to a proxy): a `/v1/` path is answered like a
///   document request, with `X-Proxied-URL` naming the absolute URL
/// - `GET /log`: `{"token_requests":[...],"metadata_requests":[...],"document_requests":[...],"connections":N}`
package final class LoopbackAuthServer: @unchecked Sendable {
    package var port: Int { child.port }
    package let scheme: String
    private let child: PythonServerProcess

    /// `http://127.0.0.1:<port>` (or `https://...`).
    package var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }

    private static let script = #"""
        import json, os, ssl, sys, threading, time, urllib.parse
        import signal
        # Started from a libdispatch thread, which blocks signals, the server inherits that mask and would
        # ignore Process.terminate(): take SIGTERM back.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        lock = threading.Lock()
        state = {"tokens": 0, "connections": 0, "token_requests": [], "metadata_requests": [], "document_requests": []}

        def next_token():
            with lock:
                state["tokens"] += 1
                return "ya29.token-%d" % state["tokens"]

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                with lock:
                    state["connections"] += 1
                    self.connection_number = state["connections"]

            def log_message(self, *args):
                pass

            def reply(self, status, body, headers=(), content_type="application/json"):
                if isinstance(body, (dict, list)):
                    body = json.dumps(body).encode()
                elif isinstance(body, str):
                    body = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def document(self, path, extra_headers=()):
                name = urllib.parse.unquote(path.split("/v1/", 1)[1].split("?")[0])
                authorization = self.headers.get("Authorization")
                with lock:
                    state["document_requests"].append({
                        "path": path, "authorization": authorization,
                        "user_project": self.headers.get("x-goog-user-project"),
                    })
                if "/always401/" in name or ("/strict/" in name and authorization == "Bearer ya29.token-1"):
                    self.reply(401, {"error": {"code": 401, "status": "UNAUTHENTICATED",
                                               "message": "Request had invalid authentication credentials."}})
                    return
                if "/echo/" in name:
                    token = (authorization or "").split(" ")[-1]
                    self.reply(403, {"error": {"code": 403, "status": "PERMISSION_DENIED", "message":
                                               "%s (token %s) may not read %s" % (authorization, token, name)}})
                    return
                self.reply(200, {"name": name, "fields": {"ok": {"booleanValue": True}},
                                 "createTime": "2024-05-01T00:00:00Z", "updateTime": "2024-05-01T00:00:00Z"},
                           extra_headers)

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.path.startswith("http://") or self.path.startswith("https://"):
                    if "/v1/" in self.path:
                        self.document(self.path, [("X-Proxied-URL", self.path)])
                    else:
                        self.reply(200, "proxied " + self.path, [("X-Proxied-URL", self.path)], "text/plain")
                    return
                path = self.path.split("?")[0]
                if path == "/token" and self.command == "POST":
                    form = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode(), keep_blank_values=True).items()}
                    with lock:
                        state["token_requests"].append({"form": form, "raw": body.decode(),
                                                        "content_type": self.headers.get("Content-Type")})
                    time.sleep(0.3)
                    self.reply(200, {"access_token": next_token(), "expires_in": 3599, "token_type": "Bearer"})
                elif path == "/token-echo":
                    self.reply(400, {"error": "invalid_request", "error_description": "cannot use " + body.decode()})
                elif path == "/token-invalid":
                    self.reply(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
                elif path == "/computeMetadata/v1/instance/service-accounts/default/token":
                    flavor = self.headers.get("Metadata-Flavor")
                    with lock:
                        state["metadata_requests"].append({"path": self.path, "flavor": flavor})
                    if flavor != "Google":
                        self.reply(403, "Missing Metadata-Flavor:Google header.", content_type="text/plain")
                        return
                    time.sleep(0.3)
                    self.reply(200, {"access_token": next_token(), "expires_in": 3599, "token_type": "Bearer"},
                               [("Metadata-Flavor", "Google")])
                elif path == "/computeMetadata/v1/project/project-id":
                    self.reply(200, "demo-metadata", [("Metadata-Flavor", "Google")], "application/text")
                elif path.startswith("/v1/"):
                    self.document(self.path)
                elif path == "/headers":
                    self.reply(200, {k.lower(): v for k, v in self.headers.items()})
                elif path == "/stall":
                    time.sleep(120)
                    self.reply(200, "too late", content_type="text/plain")
                elif path == "/pause":
                    time.sleep(0.2)
                    self.reply(200, "connection %d" % self.connection_number, content_type="text/plain")
                elif path == "/log":
                    with lock:
                        self.reply(200, {k: state[k] for k in
                                         ("token_requests", "metadata_requests", "document_requests", "connections")})
                else:
                    self.reply(404, {"error": "not found"})

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128

            def handle_error(self, request, client_address):
                pass

        \#(ParentWatch.python)

        server = Server(("127.0.0.1", 0), Handler)
        if len(sys.argv) == 3:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            server.socket = context.wrap_socket(server.socket, server_side=True)
        _watch_parent()
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Starts the server (https with `certificate` and `key` PEM files) and waits until it listens.
    package init(certificate: URL? = nil, key: URL? = nil) throws {
        var arguments: [String] = []
        if let certificate, let key { arguments += [certificate.path, key.path] }
        scheme = certificate == nil ? "http" : "https"
        child = try PythonServerProcess(.inline(Self.script), arguments: arguments)
    }

    /// Stops the server process without waiting for it (``Foundation/Process/end(grace:)``).
    package func stop() { child.stop() }

    /// Starts a server on a thread of its own (the start waits for the child process to listen).
    package static func start(certificate: URL? = nil, key: URL? = nil) async throws -> LoopbackAuthServer {
        try await BlockingWork.run { try LoopbackAuthServer(certificate: certificate, key: key) }
    }

    /// Runs `body` with a fresh (http) server and stops it afterwards.
    package static func with<T>(_ body: (LoopbackAuthServer) async throws -> T) async throws -> T {
        let server = try await start()
        defer { server.stop() }
        return try await body(server)
    }

    /// The server's log (`GET /log`).
    package func log() async throws -> JSONValue {
        let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: baseURL + "/log"))
        return try JSONValue.parse(response.body)
    }

    /// The form fields of each token request, in order.
    package func tokenForms() async throws -> [[String: String]] {
        try await log()["token_requests"]?.arrayValue?.map { request in
            (request["form"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        } ?? []
    }

    /// The `Authorization` header of each document request, in order.
    package func documentAuthorizations() async throws -> [String?] {
        try await log()["document_requests"]?.arrayValue?.map { $0["authorization"]?.stringValue } ?? []
    }

    /// A production-style client (isEmulator false, plain http on loopback) for project `p` on this server.
    package func firestore(credentials: any Credentials, transport: any HTTPTransport = CurlTransport()) throws
        -> Firestore
    {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: baseURL + "/v1/", credentials: credentials,
            transport: transport, isEmulator: false, retryPolicy: .none)
    }
}
