import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The Listen stream over TLS and HTTP/2 negotiated by ALPN (`CURL_HTTP_VERSION_2TLS`), the way it reaches
/// production, against an nginx on loopback that terminates TLS in front of the emulator:
/// `grpc_pass grpc://EMULATOR` for the gRPC paths and `proxy_pass` (HTTP/1.1) for the REST paths under `/v1/`.
///
/// The setup, the smallest honest one: a throwaway CA and a server certificate it signs for `127.0.0.1`
/// (`subjectAltName=IP:127.0.0.1`), made with `openssl` at test time; nginx started by the test with a private
/// prefix (configuration, logs, pid file and temporary files in a temporary folder) and ended on every path.
/// The client is `Firestore(database:baseURL:credentials:transport:isEmulator:retryPolicy:)` with the base URL
/// `https://127.0.0.1:PROXYPORT`, `EmulatorOwnerCredentials` (`Bearer owner`, which the emulator behind the proxy
/// accepts) and `isEmulator: true`, because the server *is* the emulator: the owner token may go there, and no
/// plain-http rule is involved (the URL is https). The CA reaches both REST and gRPC through
/// `CurlTransport.Configuration.caBundlePath` (`WatchStreamPool` builds the channel from the transport's
/// configuration). The client knows only the proxy's address, so every snapshot came through nginx, and the gRPC
/// transfer refuses any response head that is not HTTP/2.
///
/// nginx must be installed (`Scripts/ensure-deps` installs Debian's `nginx`); when it is missing the tests
/// fail and say so.
@Suite("Listen through a TLS HTTP/2 proxy", .timeLimit(.minutes(2)))
struct ListenTLSProxyLiveTests {
    typealias Change = FeedModesLiveTests.Change

    /// A client of the emulator behind `proxy`; trusting the proxy's CA unless `trustingCA` is false (then the
    /// system trust store, which does not hold the throwaway CA).
    static func client(_ proxy: TLSGRPCProxy, label: String, trustingCA: Bool = true) throws -> Firestore {
        let configuration = CurlTransport.Configuration(caBundlePath: trustingCA ? proxy.caBundlePath : nil)
        return Firestore(
            database: try DatabaseID(projectID: EmulatorEnvironment.uniqueProjectID(label)),
            baseURL: proxy.baseURL, credentials: EmulatorOwnerCredentials(),
            transport: CurlTransport(configuration: configuration), isEmulator: true, retryPolicy: .none)
    }

    /// Documents written by REST through the proxy, a Listen feed, two writes: the exact change lists, no feed
    /// event at all (no `fellBackToPolling`, no `listenFailed`), one open gRPC call, and nginx's access log shows
    /// the REST commits arriving over HTTP/2.
    @Test func theListenStreamWorksThroughTheProxyWithoutFallingBack() async throws {
        try await TLSGRPCProxy.with(emulatorHost: EmulatorEnvironment.requireHost(), Self.listenThroughTheProxy)
    }

    static func listenThroughTheProxy(_ proxy: TLSGRPCProxy) async throws {
        let db = try Self.client(proxy, label: "tls-listen")
        #expect(db.baseURL == proxy.baseURL + "/v1/")
        #expect(db.grpcBaseURL.hasPrefix("https://127.0.0.1:"))
        let fruits = db.collection("fruits")
        for (id, name, favourite) in [
            ("apple", "Apple", true), ("banana", "Banana", false), ("cherry", "Cherry", true),
        ] {
            try await fruits.document(id).setData(["name": .string(name), "isFavourite": .boolean(favourite)])
        }
        let events = ListenLiveTests.Events()
        let query = fruits.whereField("isFavourite", isEqualTo: true).order(by: "name")
        var feed = query.snapshots(source: .listen) { events.note($0) }.makeAsyncIterator()
        var changes: [[Change]] = []
        func next() async throws {
            changes.append(ListenLiveTests.changes(try #require(try await feed.next())))
        }
        try await next()
        try await fruits.document("banana").updateData(["isFavourite": true])
        try await next()
        try await fruits.document("apple").delete()
        try await next()
        #expect(
            changes == [
                [
                    Change(type: .added, id: "apple", oldIndex: nil, newIndex: 0),
                    Change(type: .added, id: "cherry", oldIndex: nil, newIndex: 1),
                ],
                [Change(type: .added, id: "banana", oldIndex: nil, newIndex: 1)],
                [Change(type: .removed, id: "apple", oldIndex: 0, newIndex: nil)],
            ])
        // No fallback to polling, and no dropped stream: the snapshots came over one gRPC call of a Listen stream.
        #expect(events.all.withLock { $0 } == [])
        let stream = try #require(WatchStreamPool.shared.stream(for: db))
        #expect(stream.channel.activeCallCount == 1)
        let log = proxy.accessLog()
        // The REST writes went through the proxy too, over HTTP/2 negotiated by ALPN.
        let commit = "\"POST /v1/projects/\(db.database.projectID)/databases/(default)/documents:commit HTTP/2.0\" 200 "
        #expect(log.contains(commit), "access log:\n\(log)")
    }

    /// Without the CA (the system trust store only) the handshake fails verification. The Listen stream reports
    /// it as a permanent error: the feed ends by throwing it, with no `listenFailed` retries and no fallback to
    /// polling (polling would fail the same way). REST writes fail the same way.
    @Test func aClientWithoutTheCAFailsTLSVerification() async throws {
        try await TLSGRPCProxy.with(emulatorHost: EmulatorEnvironment.requireHost(), Self.listenWithoutTheCA)
    }

    static func listenWithoutTheCA(_ proxy: TLSGRPCProxy) async throws {
        let db = try Self.client(proxy, label: "tls-untrusted", trustingCA: false)
        let events = ListenLiveTests.Events()
        var feed = db.collection("fruits").snapshots(source: .listen) { events.note($0) }.makeAsyncIterator()
        let error = await #expect(throws: FirestoreError.self) { _ = try await feed.next() }
        let reason = "(SSL certificate problem: unable to get local issuer certificate)"
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "TLS certificate verification failed: \(proxy.baseURL)/google.firestore.v1.Firestore/Listen \(reason)"
        )
        #expect(events.all.withLock { $0 } == [])
        #expect(WatchStreamPool.shared.stream(for: db) == nil)

        let restError = await #expect(throws: FirestoreError.self) {
            try await db.document("fruits/apple").setData(["name": "Apple"])
        }
        #expect(restError?.code == .failedPrecondition)
        #expect(
            restError?.message
                == "TLS certificate verification failed: \(proxy.baseURL)/v1/projects/\(db.database.projectID)"
                + "/databases/(default)/documents:commit \(reason)")
    }
}

/// nginx on a loopback port terminating TLS (a throwaway CA's certificate for `127.0.0.1`) and HTTP/2 in front of
/// the emulator: gRPC by `grpc_pass`, REST (`/v1/`) by `proxy_pass` over HTTP/1.1. Started as a child process
/// with a private prefix; ``stop()`` ends it (SIGTERM, then SIGKILL) and removes the folder.
struct TLSGRPCProxy {
    /// `https://127.0.0.1:PORT`.
    let baseURL: String
    /// The CA certificate that signed the proxy's certificate.
    let caBundlePath: String
    let folder: URL
    private let process: Process

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Where Debian's nginx packages put the binary; `PATH` is searched too.
    static func nginxPath() throws -> String {
        let candidates =
            ["/usr/sbin/nginx"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/nginx" }
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(
                description: "nginx is not installed (no /usr/sbin/nginx, none on PATH): the TLS proxy tests need it; "
                    + "run Scripts/ensure-deps (it installs Debian's nginx package) or apt-get install nginx")
        }
        return path
    }

    /// Makes the certificates and the configuration, starts nginx and waits until it accepts connections (a port
    /// taken in between is retried with another).
    static func start(emulatorHost: String) async throws -> TLSGRPCProxy {
        let nginx = try nginxPath()
        let folder = try OpenSSLTool.temporaryFolder("tls-grpc-proxy")
        do {
            try await makeCertificates(in: folder)
            var lastFailure = ""
            for _ in 0..<3 {
                let port = closedLoopbackPort()
                let process = try launch(nginx, port: port, emulatorHost: emulatorHost, folder: folder)
                let listening: Bool
                do {
                    listening = try await waitUntilListening(process, port: port)
                } catch {
                    await finish(process)
                    throw error
                }
                if listening {
                    return TLSGRPCProxy(
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

    /// `ca.pem` (a throwaway CA) and `server.pem` / `server-key.pem` (signed by it for `IP:127.0.0.1`), P-256 keys.
    static func makeCertificates(in folder: URL) async throws {
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

    /// The configuration: every path inside `folder`, one worker, HTTP/2 over TLS on `port`.
    static func configuration(port: Int, emulatorHost: String, folder: URL) -> String {
        let prefix = folder.path
        return """
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log info;
            events { worker_connections 128; }
            http {
                access_log \(prefix)/access.log;
                client_body_temp_path \(prefix)/client_body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                client_max_body_size 0;
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(prefix)/server.pem;
                    ssl_certificate_key \(prefix)/server-key.pem;
                    location /google.firestore.v1.Firestore/ {
                        grpc_pass grpc://\(emulatorHost);
                        grpc_read_timeout 1h;
                        grpc_send_timeout 1h;
                    }
                    location /v1/ {
                        proxy_pass http://\(emulatorHost);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                    }
                }
            }

            """
    }

    static func launch(_ nginx: String, port: Int, emulatorHost: String, folder: URL) throws -> Process {
        let conf = folder.appendingPathComponent("nginx.conf")
        try configuration(port: port, emulatorHost: emulatorHost, folder: folder).write(
            to: conf, atomically: true, encoding: .utf8)
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

    /// Whether nginx accepts connections on `port` within 10 s (false when it exited or never listened); polled
    /// without blocking a cooperative thread.
    static func waitUntilListening(_ process: Process, port: Int) async throws -> Bool {
        for _ in 0..<200 {
            guard process.isRunning else { return false }
            if try await BlockingWork.run({ acceptsConnections(port: port) }) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    static func acceptsConnections(port: Int) -> Bool {
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

    /// What nginx logged of the requests it finished.
    func accessLog() -> String {
        (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
    }

    /// Runs `body` with a fresh proxy, then stops it (``stop()``) whether `body` returned or threw.
    static func with(
        emulatorHost: String, _ body: (TLSGRPCProxy) async throws -> Void
    ) async throws {
        let proxy = try await start(emulatorHost: emulatorHost)
        do {
            try await body(proxy)
        } catch {
            await proxy.stop()
            throw error
        }
        await proxy.stop()
    }

    /// Ends nginx and waits for its exit (SIGTERM; SIGKILL 5 s after a 10 s wait: ``Process/exitStatus(timeout:)``,
    /// on a thread of its own), then removes its folder (only then: nginx deletes its pid file as it exits).
    func stop() async {
        await Self.finish(process)
        try? FileManager.default.removeItem(at: folder)
    }

    /// SIGTERM to `process` (nginx's fast shutdown) and its exit awaited.
    static func finish(_ process: Process) async {
        if process.isRunning { process.terminate() }
        _ = await process.exitStatus(timeout: 10)
    }
}
