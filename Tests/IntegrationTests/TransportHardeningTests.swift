import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST
@testable import FirestoreWire

/// `CurlTransport` hardening against loopback servers: TLS verification with and without a custom CA bundle,
/// the User-Agent, the low-speed abort, proxies (explicit and from the environment) and the bounded pool.
@Suite("CurlTransport hardening", .timeLimit(.minutes(2)))
struct TransportHardeningTests {
    @Test func aSelfSignedCertificateIsRefusedByDefaultAndAcceptedAsTheCABundle() async throws {
        let folder = try OpenSSLTool.temporaryFolder("tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeSelfSignedCertificate(in: folder)
        let server = try await LoopbackAuthServer.start(
            certificate: folder.appendingPathComponent("cert.pem"), key: folder.appendingPathComponent("cert-key.pem"))
        defer { server.stop() }
        let url = server.baseURL + "/headers"
        #expect(url.hasPrefix("https://127.0.0.1:"))

        let refusing = CurlTransport()
        let error = await #expect(throws: FirestoreError.self) {
            try await refusing.send(HTTPRequest(method: "GET", url: url))
        }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message.hasPrefix("TLS certificate verification failed: \(url) (") == true)
        #expect(error?.message.contains("self-signed certificate") == true)

        let trusting = CurlTransport(
            configuration: .init(caBundlePath: folder.appendingPathComponent("cert.pem").path))
        let response = try await trusting.send(HTTPRequest(method: "GET", url: url))
        #expect(response.status == 200)
        let headers = try JSONValue.parse(response.body)
        #expect(headers["user-agent"] == "firestore-feed-swift/0.1.0")

        // The bundle replaces the system store, and a wrong bundle is refused too.
        try await OpenSSLTool.makeSelfSignedCertificate(
            in: folder.appendingPathComponent("other", isDirectory: true).creatingFolder())
        let otherCA = folder.appendingPathComponent("other/cert.pem").path
        let wrong = CurlTransport(configuration: .init(caBundlePath: otherCA))
        let wrongError = await #expect(throws: FirestoreError.self) {
            try await wrong.send(HTTPRequest(method: "GET", url: url))
        }
        #expect(wrongError?.code == .failedPrecondition)
    }

    @Test func anUnreadableCABundleIsAFailedPrecondition() async throws {
        let folder = try OpenSSLTool.temporaryFolder("tls-missing")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeSelfSignedCertificate(in: folder)
        let server = try await LoopbackAuthServer.start(
            certificate: folder.appendingPathComponent("cert.pem"), key: folder.appendingPathComponent("cert-key.pem"))
        defer { server.stop() }
        let transport = CurlTransport(configuration: .init(caBundlePath: "/nonexistent/ca.pem"))
        let error = await #expect(throws: FirestoreError.self) {
            try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/headers"))
        }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message.hasPrefix("cannot read the CA bundle /nonexistent/ca.pem: ") == true)
    }

    @Test func theUserAgentNamesThePackageAndVersion() async throws {
        try await LoopbackAuthServer.with { server in
            let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: server.baseURL + "/headers"))
            let headers = try JSONValue.parse(response.body)
            #expect(headers["user-agent"] == "firestore-feed-swift/0.1.0")
            #expect(FirestoreFeedPackage.userAgent == "firestore-feed-swift/0.1.0")
        }
    }

    @Test func aStalledTransferIsAbortedByTheLowSpeedLimit() async throws {
        try await LoopbackAuthServer.with { server in
            // /stall sends nothing for 120 s; below 1 byte/s for 1 s aborts long before that and before the 60 s
            // request timeout.
            // The message proves the low-speed limit ended it (not the request timeout); no wall-clock bound,
            // which a loaded machine or a sanitizer run breaks.
            let transport = CurlTransport(configuration: .init(lowSpeedLimit: 1, lowSpeedTime: 1))
            let error = await #expect(throws: FirestoreError.self) {
                try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/stall"))
            }
            #expect(error?.code == .deadlineExceeded)
            #expect(
                error?.message.hasPrefix(
                    "transfer stalled (below lowSpeedLimit 1 bytes/s for lowSpeedTime 1.0 s): \(server.baseURL)/stall")
                    == true)
        }
    }

    @Test func aBodyOverTheCapIsMarkedAsNeverRetried() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport(configuration: .init(maxResponseBytes: 1000))
            let error = await #expect(throws: FirestoreError.self) {
                try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/big"))
            }
            #expect(error?.code == .resourceExhausted)
            #expect(error?.isNeverRetried == true)
            #expect(error?.requestWasNotSent == false)
        }
    }

    @Test func aRefusedConnectionIsMarkedAsNotSent() async throws {
        let transport = CurlTransport()
        try await withClosedLoopbackPort { port in
            let error = await #expect(throws: FirestoreError.self) {
                try await transport.send(HTTPRequest(method: "POST", url: "http://127.0.0.1:\(port)/x"))
            }
            #expect(error?.code == .unavailable)
            #expect(error?.requestWasNotSent == true)
        }
    }

    @Test func anExplicitProxyIsUsed() async throws {
        try await LoopbackAuthServer.with { proxy in
            let transport = CurlTransport(configuration: .init(proxy: proxy.baseURL))
            let response = try await transport.send(HTTPRequest(method: "GET", url: "http://backend.invalid/hello"))
            #expect(response.status == 200)
            #expect(response.header("X-Proxied-URL") == "http://backend.invalid/hello")
            #expect(response.body == Data("proxied http://backend.invalid/hello".utf8))
        }
    }

    @Test func proxyEnvironmentVariablesAreHonoured() async throws {
        // In a child process (the CLI), so the variables do not leak into other tests: http_proxy routes the
        // emulator request of `firestore-feed get` through the loopback proxy.
        try await LoopbackAuthServer.with { proxy in
            let process = Process()
            process.executableURL = CLIProcess.executable
            process.arguments = [
                "get", "fruits/apple", "--emulator", "emulator.invalid:8080", "--project", "demo-proxy",
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["FIRESTORE_EMULATOR_HOST"] = nil
            environment["no_proxy"] = nil
            environment["NO_PROXY"] = nil
            environment["http_proxy"] = proxy.baseURL
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = await CLIProcess.readToEnd(output.fileHandleForReading)
            let status = await process.exitStatus(timeout: 60)
            #expect(status == 0)
            let line = try JSONValue.parse(data)
            #expect(line["path"] == "fruits/apple")
            #expect(line["data"] == ["ok": true])
            let request = try #require(try await proxy.log()["document_requests"]?.arrayValue?.first)
            #expect(
                request["path"]
                    == "http://emulator.invalid:8080/v1/projects/demo-proxy/databases/(default)/documents/fruits/apple")
            #expect(request["authorization"] == "Bearer owner")
        }
    }

    @Test func concurrentRequestsShareAtMostMaxConnectionsConnections() async throws {
        try await LoopbackAuthServer.with { server in
            let transport = CurlTransport(configuration: .init(maxConnections: 3))
            let url = server.baseURL + "/pause"
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let response = try await transport.send(HTTPRequest(method: "GET", url: url))
                        return String(decoding: response.body, as: UTF8.self)
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            // Every answer names one of the first three TCP connections the server accepted.
            #expect(bodies.isSubset(of: ["connection 1", "connection 2", "connection 3"]))
            #expect(transport.openedConnectionCount <= 3)
            #expect(transport.openedConnectionCount >= 1)
            #expect(transport.createdHandleCount <= 3)
        }
    }

    @Test func aRequestWaitingForAConnectionCanBeCancelled() async throws {
        try await LoopbackAuthServer.with { server in
            let transport = CurlTransport(configuration: .init(maxConnections: 1))
            let stall = server.baseURL + "/stall"  // answers after 120 s
            let document = server.baseURL + "/v1/projects/p/databases/(default)/documents/c/waiting"
            let busy = Task { try await transport.send(HTTPRequest(method: "GET", url: stall)) }
            // The stalled request holds the one handle before the second asks for it (however loaded the machine).
            for _ in 0..<1_000 where transport.createdHandleCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
            try #require(transport.createdHandleCount == 1)
            let waiting = Task { try await transport.send(HTTPRequest(method: "GET", url: document)) }
            try await Task.sleep(for: .milliseconds(300))
            waiting.cancel()
            let clock = ContinuousClock()
            let start = clock.now
            let error = await #expect(throws: FirestoreError.self) { try await waiting.value }
            #expect(clock.now - start < .seconds(60))  // did not wait for /stall to end
            #expect(error?.code == .cancelled)
            #expect(
                error?.message
                    == "request cancelled: \(server.baseURL)/v1/projects/p/databases/(default)/documents/c/waiting")
            // It was cancelled while waiting for the one connection: the server never saw it.
            #expect(try await server.log()["document_requests"] == [])
            busy.cancel()
            _ = await #expect(throws: FirestoreError.self) { try await busy.value }
            // The handle went back to the pool: the next request is served on it.
            let next = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/headers"))
            #expect(next.status == 200)
            #expect(transport.createdHandleCount == 1)
        }
    }
}

extension URL {
    /// Creates this folder (and its parents) and returns it.
    fileprivate func creatingFolder() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
