import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (an ephemeral port), run as a `python3` child process, for transport
/// tests that must not depend on the Firestore emulator or the network.
///
/// Routes (any method unless noted):
/// - `/hello`: 200, body `hello, world\n`, headers `Content-Type: text/plain; charset=utf-8`, `X-Test: yes-42`
/// - `/echo`: 200, echoes the request body; `X-Method`, `X-Content-Length`, `X-Content-Type`, `X-Expect`
///   report what arrived (`none` when a header was absent)
/// - `/gzip`: 200, `Content-Encoding: gzip` body that decodes to `"compressed payload "` × 100;
///   `X-Accept-Encoding` reports the request's header
/// - `/connection`: 200, body `connection N`, N numbering the server's accepted TCP connections from 1
/// - `/slow`: sleeps 2 s, then 200 `late`
/// - `/stall`: sleeps 60 s, then 200 `too late` (for cancellation: it never answers in a test's time)
/// - `/big`: 200 with 5000 bytes of `x`
/// - anything else: 404 `{"error":"not found"}`
package final class LoopbackHTTPServer: @unchecked Sendable {
    /// The TCP port the server listens on.
    package var port: Int { child.port }
    private let child: PythonServerProcess

    /// `http://127.0.0.1:<port>`.
    package var baseURL: String { "http://127.0.0.1:\(port)" }

    private static let script = #"""
        import gzip, os, sys, threading, time
        import signal
        # Started from a libdispatch thread, which blocks signals, the server inherits that mask and would
        # ignore Process.terminate(): take SIGTERM back.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        lock = threading.Lock()
        connections = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                global connections
                super().setup()
                with lock:
                    connections += 1
                    self.connection_number = connections

            def log_message(self, *args):
                pass

            def reply(self, status, body, headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path = self.path.split("?")[0]
                if path == "/hello":
                    self.reply(200, b"hello, world\n",
                               [("Content-Type", "text/plain; charset=utf-8"), ("X-Test", "yes-42")])
                elif path == "/echo":
                    self.reply(200, body, [
                        ("X-Method", self.command),
                        ("X-Content-Length", self.headers.get("Content-Length", "none")),
                        ("X-Content-Type", self.headers.get("Content-Type", "none")),
                        ("X-Expect", self.headers.get("Expect", "none")),
                    ])
                elif path == "/gzip":
                    self.reply(200, gzip.compress(b"compressed payload " * 100), [
                        ("Content-Encoding", "gzip"),
                        ("X-Accept-Encoding", self.headers.get("Accept-Encoding", "none")),
                    ])
                elif path == "/connection":
                    self.reply(200, ("connection %d" % self.connection_number).encode())
                elif path == "/slow":
                    time.sleep(2)
                    self.reply(200, b"late")
                elif path == "/stall":
                    time.sleep(60)
                    self.reply(200, b"too late")
                elif path == "/big":
                    self.reply(200, b"x" * 5000)
                else:
                    self.reply(404, b'{"error":"not found"}', [("Content-Type", "application/json")])

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # e.g. a client that timed out and closed the socket

        \#(ParentWatch.python)

        server = Server(("127.0.0.1", 0), Handler)
        _watch_parent()
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Starts the server and waits until it listens.
    package init() throws {
        child = try PythonServerProcess(.inline(Self.script))
    }

    /// Stops the server process without waiting for it (``Foundation/Process/end(grace:)``).
    package func stop() { child.stop() }

    /// Runs `body` with a fresh server and stops the server afterwards.
    package static func with<T>(_ body: (LoopbackHTTPServer) async throws -> T) async throws -> T {
        // Started on a thread of its own: waiting for python3 to listen must not block a cooperative thread.
        let server = try await BlockingWork.run { try LoopbackHTTPServer() }
        defer { server.stop() }
        return try await body(server)
    }
}

/// Runs `body` with a loopback TCP port that nothing listens on, held for as long as `body` runs: a socket bound to
/// it (the kernel picks a free port) that never listens, so a connection to it is refused, and no other test's
/// server can be given the port meanwhile (a port closed before use can be, and a "refused" test would then talk to
/// that server).
package func withClosedLoopbackPort<T>(_ body: (Int) async throws -> T) async throws -> T {
    guard let (fd, port) = boundLoopbackSocket(0) else {
        throw LoopbackPortFailure(description: "could not bind a loopback socket: errno \(errno)")
    }
    defer { close(fd) }
    return try await body(port)
}

/// A loopback port could not be bound.
package struct LoopbackPortFailure: Error, CustomStringConvertible {
    package var description: String
}

/// A closed loopback port below the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`, 32768 and up
/// here), which a server bound to port 0 never gets: for a server a test stops and starts again on the same port, so
/// that no other test's server can take the port in between (a Listen test once reconnected to another test's
/// scripted gRPC server that had been given its emulator's port). The port is also reserved for this process, by a
/// lock on a file named after it in a folder of the machine's temporary directory, held until the process ends, so
/// that no other caller of this function, in this process or another test process, is given it.
package func closedLoopbackPortBelowEphemeralRange() throws -> Int {
    let folder = NSTemporaryDirectory() + "firestore-feed-test-ports"
    mkdir(folder, 0o700)
    for _ in 0..<200 {
        let port = Int.random(in: 20_000..<32_000)
        let lock = open("\(folder)/\(port).lock", O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else { continue }
        // Kept open (and locked) for the rest of the process's life: the reservation.
        guard flock(lock, LOCK_EX | LOCK_NB) == 0, let (fd, bound) = boundLoopbackSocket(port), bound == port else {
            close(lock)
            continue
        }
        close(fd)
        return port
    }
    throw LoopbackPortFailure(description: "no free loopback port below the ephemeral range in 200 tries")
}

/// A TCP socket bound to 127.0.0.1:`port` (0: any free port), not listening, and the port it is bound to, or `nil`
/// when the bind failed.
private func boundLoopbackSocket(_ port: Int) -> (fd: Int32, port: Int)? {
    #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        return nil
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
