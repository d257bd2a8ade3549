import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// nginx on a loopback port with TLS and HTTP/2 (a throwaway CA's certificate for `127.0.0.1`), started as a child
/// process with a private prefix (configuration, logs, pid file and temporary files in a temporary folder); what it
/// serves is the caller's `location` blocks. ``stop()`` ends it (SIGTERM, then SIGKILL) and removes the folder.
package struct LoopbackNginx {
    /// `https://127.0.0.1:PORT`.
    package let baseURL: String
    /// The CA certificate that signed the server's certificate.
    package let caBundlePath: String
    /// The private prefix: certificates, `nginx.conf`, `access.log`, `error.log`.
    package let folder: URL
    private let process: Process

    /// Why nginx could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Where Debian's nginx packages put the binary; `PATH` is searched too.
    package static func nginxPath() throws -> String {
        let candidates =
            ["/usr/sbin/nginx"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/nginx" }
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(
                description: "nginx is not installed (no /usr/sbin/nginx, none on PATH): the TLS tests need it; "
                    + "run Scripts/ensure-deps (it installs Debian's nginx package) or apt-get install nginx")
        }
        return path
    }

    /// The whole configuration: every path inside `folder`, one worker, HTTP/2 over TLS on `port`, the access log
    /// in `logFormat` (nginx's `log_format` variables; `nil`: nginx's combined format), then `locations`.
    /// `listen` is what follows the address on nginx's `listen` line: `ssl http2` (the default), `ssl` (TLS with
    /// HTTP/1.1 only) or `""` (cleartext HTTP/1.1 only; the server's certificate is then unused).
    package static func configuration(
        port: Int, folder: URL, logFormat: String? = nil, listen: String = "ssl http2", locations: String
    ) -> String {
        let prefix = folder.path
        let log =
            logFormat.map { "log_format custom '\($0)';\n    access_log \(prefix)/access.log custom;" }
            ?? "access_log \(prefix)/access.log;"
        return """
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log info;
            events { worker_connections 128; }
            http {
                \(log)
                client_body_temp_path \(prefix)/client_body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                client_max_body_size 0;
                server {
                    listen 127.0.0.1:\(port) \(listen);
                    ssl_certificate \(prefix)/server.pem;
                    ssl_certificate_key \(prefix)/server-key.pem;
            \(locations)
                }
            }

            """
    }

    /// Makes the certificates, writes `configuration(port, folder)` and starts nginx, waiting until it accepts
    /// connections (a port taken in between is retried with another, three times).
    /// - Throws: ``Failure`` when nginx is missing or does not start (with its error log); openssl's failures.
    package static func start(label: String, configuration: (_ port: Int, _ folder: URL) -> String) async throws
        -> LoopbackNginx
    {
        let nginx = try nginxPath()
        let folder = try OpenSSLTool.temporaryFolder(label)
        do {
            try await makeCertificates(in: folder)
            var lastFailure = ""
            for _ in 0..<3 {
                // Below the ephemeral range and reserved for this process: while nginx starts, no other test's
                // server can be given the port, so whatever accepts connections on it is this nginx.
                let port = try closedLoopbackPortBelowEphemeralRange()
                let process = try launch(nginx, configuration: configuration(port, folder), folder: folder)
                let listening: Bool
                do {
                    listening = try await waitUntilListening(process, port: port)
                } catch {
                    await finish(process)
                    throw error
                }
                if listening {
                    return LoopbackNginx(
                        baseURL: "https://127.0.0.1:\(port)",
                        caBundlePath: folder.appendingPathComponent("ca.pem").path, folder: folder, process: process)
                }
                await finish(process)
                lastFailure =
                    (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                if !lastFailure.contains("Address already in use") { break }
            }
            throw Failure(description: "nginx did not start; its error log:\n\(lastFailure)")
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Runs `body` with a fresh server, then stops it (``stop()``) whether `body` returned or threw.
    package static func with(
        label: String, configuration: (_ port: Int, _ folder: URL) -> String,
        _ body: (LoopbackNginx) async throws -> Void
    ) async throws {
        let server = try await start(label: label, configuration: configuration)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// What nginx logged of the requests it finished.
    package func accessLog() -> String {
        (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
    }

    /// Ends nginx and waits for its exit (SIGTERM; SIGKILL 5 s after a 10 s wait: ``Process/exitStatus(timeout:)``,
    /// on a thread of its own), then removes its folder (only then: nginx deletes its pid file as it exits).
    package func stop() async {
        await Self.finish(process)
        try? FileManager.default.removeItem(at: folder)
    }

    /// `ca.pem` (a throwaway CA) and `server.pem` / `server-key.pem` (signed by it for `IP:127.0.0.1`), P-256 keys.
    package static func makeCertificates(in folder: URL) async throws {
        try await OpenSSLTool.require(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "1", "-subj", "/CN=firestore-feed test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], in: folder)
        try await OpenSSLTool.require(
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "server-key.pem", "-out", "server.csr", "-subj", "/CN=127.0.0.1",
            ], in: folder)
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".write(
            to: folder.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        try await OpenSSLTool.require(
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
                "-days", "1", "-extfile", "server.ext", "-out", "server.pem",
            ], in: folder)
    }

    private static func launch(_ nginx: String, configuration: String, folder: URL) throws -> Process {
        let conf = folder.appendingPathComponent("nginx.conf")
        try configuration.write(to: conf, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = [
            "-p", folder.path + "/", "-c", conf.path, "-e", folder.appendingPathComponent("error.log").path,
            "-g", "daemon off;",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Whether nginx accepts connections on `port` within 30 s (false when it exited or never listened); polled
    /// without blocking a cooperative thread.
    private static func waitUntilListening(_ process: Process, port: Int) async throws -> Bool {
        // 30 s: a hang guard for a start on a loaded machine.
        for _ in 0..<600 {
            guard process.isRunning else { return false }
            if try await BlockingWork.run({ acceptsConnections(port: port) }) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    private static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// SIGTERM to `process` (nginx's fast shutdown) and its exit awaited.
    private static func finish(_ process: Process) async {
        if process.isRunning { process.terminate() }
        _ = await process.exitStatus(timeout: 10)
    }
}
