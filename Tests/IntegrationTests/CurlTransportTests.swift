import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreWire

/// `CurlTransport` against loopback sockets only: a closed port and a `python3` HTTP server started by each
/// test (see `LoopbackHTTPServer`). No Firestore emulator needed.
@Suite("CurlTransport", .timeLimit(.minutes(2)))
struct CurlTransportTests {
    private let documentPath = "/v1/projects/demo/databases/(default)/documents/c/d"

    /// Runs `body`, expecting it to throw a `FirestoreError`, and returns that error.
    private func expectFirestoreError(
        _ body: () async throws -> HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> FirestoreError? {
        do {
            let response = try await body()
            Issue.record("expected a FirestoreError, got HTTP \(response.status)", sourceLocation: sourceLocation)
            return nil
        } catch let error as FirestoreError {
            return error
        } catch {
            Issue.record("expected a FirestoreError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func closedPortThrowsUnavailableNamingTheURL() async throws {
        let transport = CurlTransport()
        let (url, error) = try await withClosedLoopbackPort { port in
            let url = "http://127.0.0.1:\(port)\(documentPath)"
            let error = await expectFirestoreError {
                try await transport.send(HTTPRequest(method: "GET", url: url + "?key=secret-api-key"))
            }
            return (url, error)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains(url + " (") == true)
        #expect(error?.message.hasPrefix("could not connect: ") == true)
        #expect(error?.message.contains("secret-api-key") == false)
        #expect(error?.httpStatus == nil)
        #expect(error?.transportFailure == .refused)  // what a recording keeps (Cassette.Failure)
        #expect(error?.requestWasNotSent == true)
    }

    @Test func getReturnsStatusBodyAndHeaders() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            let response = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/hello"))
            #expect(response.status == 200)
            #expect(response.body == Data("hello, world\n".utf8))
            #expect(response.header("X-Test") == "yes-42")
            #expect(response.header("content-type") == "text/plain; charset=utf-8")
            #expect(response.header("Content-Length") == "13")
        }
    }

    @Test func postBodyArrivesByteExact() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            let body = Data((0...255).map { UInt8($0) }) + Data(#"{"name":"Zoë ☕"}"#.utf8)
            let response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: server.baseURL + "/echo",
                    headers: [HTTPHeader("Content-Type", "application/json")], body: body))
            #expect(response.status == 200)
            #expect(response.body == body)
            #expect(response.header("X-Method") == "POST")
            #expect(response.header("X-Content-Length") == "275")
            #expect(response.header("X-Content-Type") == "application/json")
            #expect(response.header("X-Expect") == "none")
        }
    }

    @Test func postWithoutBodySendsAnEmptyBody() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            let response = try await transport.send(HTTPRequest(method: "POST", url: server.baseURL + "/echo"))
            #expect(response.status == 200)
            #expect(response.body == Data())
            #expect(response.header("X-Method") == "POST")
            #expect(response.header("X-Content-Length") == "0")
            #expect(response.header("X-Content-Type") == "none")
        }
    }

    @Test func patchAndDeleteSendTheirMethod() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            let patch = try await transport.send(
                HTTPRequest(method: "PATCH", url: server.baseURL + "/echo", body: Data(#"{"fields":{}}"#.utf8)))
            #expect(patch.status == 200)
            #expect(patch.header("X-Method") == "PATCH")
            #expect(patch.body == Data(#"{"fields":{}}"#.utf8))
            #expect(patch.header("X-Content-Length") == "13")

            let delete = try await transport.send(HTTPRequest(method: "DELETE", url: server.baseURL + "/echo"))
            #expect(delete.status == 200)
            #expect(delete.header("X-Method") == "DELETE")
            #expect(delete.header("X-Content-Length") == "none")
            #expect(delete.body == Data())
        }
    }

    @Test func notFoundIsReturnedNotThrown() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            let response = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/missing"))
            #expect(response.status == 404)
            #expect(response.body == Data(#"{"error":"not found"}"#.utf8))
            #expect(response.header("Content-Type") == "application/json")
        }
    }

    @Test func gzipBodyArrivesDecoded() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            let response = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/gzip"))
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.header("X-Accept-Encoding")?.contains("gzip") == true)
            #expect(response.body == Data(String(repeating: "compressed payload ", count: 100).utf8))
            #expect(response.body.count == 1900)
        }
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            let first = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/connection"))
            let second = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/connection"))
            let third = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/connection"))
            #expect(first.body == Data("connection 1".utf8))
            #expect(second.body == Data("connection 1".utf8))
            #expect(third.body == Data("connection 1".utf8))
            #expect(transport.openedConnectionCount == 1)
        }
    }

    /// libcurl resends a request by itself when a reused connection closes without an answer, so a request
    /// that is not idempotent (a commit) always goes out on a new connection; idempotent ones reuse it.
    @Test func nonIdempotentRequestsTakeANewConnection() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            let url = server.baseURL + "/connection"
            let read = try await transport.send(
                HTTPRequest(
                    method: "POST", url: url, body: Data("{}".utf8),
                    isIdempotent: true))
            let write = try await transport.send(HTTPRequest(method: "POST", url: url, body: Data("{}".utf8)))
            let patch = try await transport.send(HTTPRequest(method: "PATCH", url: url, body: Data("{}".utf8)))
            let get = try await transport.send(HTTPRequest(method: "GET", url: url))
            #expect(read.body == Data("connection 1".utf8))
            #expect(write.body == Data("connection 2".utf8))
            #expect(patch.body == Data("connection 3".utf8))
            #expect(get.status == 200)
            #expect(transport.openedConnectionCount == 3)  // the GET reused one of them
        }
    }

    @Test func httpMethodsSayWhetherARequestIsIdempotent() {
        let idempotent = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "get"].map {
            HTTPRequest(method: $0, url: "http://h/").isIdempotent
        }
        #expect(idempotent == [true, true, true, true, true, true])
        #expect(HTTPRequest(method: "POST", url: "http://h/").isIdempotent == false)
        #expect(HTTPRequest(method: "PATCH", url: "http://h/").isIdempotent == false)
        #expect(HTTPRequest(method: "POST", url: "http://h/", isIdempotent: true).isIdempotent == true)
    }

    @Test func requestTimeoutThrowsDeadlineExceeded() async throws {
        try await LoopbackHTTPServer.with { server in
            // The server answers /slow after 2 s: a deadline-exceeded error (not a 200) proves the 0.3 s
            // timeout fired first, without timing the test itself.
            let transport = CurlTransport(configuration: .init(requestTimeout: 0.3))
            let error = await expectFirestoreError {
                try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/slow"))
            }
            #expect(error?.code == .deadlineExceeded)
            #expect(error?.message.contains("\(server.baseURL)/slow") == true)
            #expect(error?.transportFailure == .timeout)
            #expect(error?.requestWasNotSent == false)
        }
    }

    @Test func bodyLargerThanTheCapThrowsResourceExhausted() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport(configuration: .init(maxResponseBytes: 1000))
            let error = await expectFirestoreError {
                try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/big"))
            }
            #expect(error?.code == .resourceExhausted)
            #expect(
                error?.message == "response body exceeds maxResponseBytes (1000 bytes): \(server.baseURL)/big")

            // The handle is reusable after the abort: a body within the cap still arrives.
            let small = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/hello"))
            #expect(small.body == Data("hello, world\n".utf8))
        }
    }

    @Test func cancellingTheTaskThrowsCancelled() async throws {
        try await LoopbackHTTPServer.with { server in
            let transport = CurlTransport()
            // The server never answers in the test's time, so only the cancellation can end the request, however
            // late the cancel comes on a loaded machine.
            let url = server.baseURL + "/stall"
            let task = Task { try await transport.send(HTTPRequest(method: "GET", url: url)) }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            let error = await expectFirestoreError { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(error?.message == "request cancelled: \(url)")
        }
    }

    @Test func alreadyCancelledTaskSendsNothing() async throws {
        let transport = CurlTransport()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:1/x"))
        }
        let error = await expectFirestoreError { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(error?.message == "request cancelled: http://127.0.0.1:1/x")
        #expect(transport.openedConnectionCount == 0)
    }

    @Test func headerWithLineBreakIsRejected() async throws {
        let transport = CurlTransport()
        let error = await expectFirestoreError {
            try await transport.send(
                HTTPRequest(
                    method: "GET", url: "http://127.0.0.1:1/x", headers: [HTTPHeader("X-Bad", "a\r\nInjected: 1")]))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "invalid HTTP header name or value: X-Bad")
    }

    @Test func headerParsingKeepsOnlyTheFinalResponseHead() {
        let collector = CurlResponseCollector(maxBodyBytes: 10, cancellation: CurlCancellation())
        let lines = [
            "HTTP/1.1 100 Continue\r\n", "X-Interim: yes\r\n", "\r\n",
            "HTTP/1.1 200 OK\r\n", "X-A: 1\r\n", "X-B:  two words \r\n", "\tfolded\r\n", "Empty:\r\n",
            "X-Utf8: Zoë\r\n", "\r\n",
        ]
        for line in lines {
            Array(line.utf8).withUnsafeBytes { collector.receiveHeaderLine($0) }
        }
        #expect(
            collector.headers == [
                HTTPHeader("X-A", "1"), HTTPHeader("X-B", "two words folded"), HTTPHeader("Empty", ""),
                HTTPHeader("X-Utf8", "Zoë"),
            ])
    }

    @Test func errorMessagesShowSchemeHostPortAndPathOnly() {
        #expect(
            CurlErrorMapping.redacted("https://user:pw@firestore.googleapis.com/v1/projects/p/documents/c?key=K#f")
                == "https://firestore.googleapis.com:443/v1/projects/p/documents/c")
        #expect(CurlErrorMapping.redacted("http://[::1]:8080/v1?x=1") == "http://[::1]:8080/v1")
        #expect(CurlErrorMapping.redacted("http://[::1]/v1") == "http://[::1]:80/v1")
        #expect(CurlErrorMapping.redacted("http://localhost") == "http://localhost:80/")
    }

    @Test func timeoutsBecomeWholeMilliseconds() {
        #expect(CurlTransfer.milliseconds(0.3) == 300)
        #expect(CurlTransfer.milliseconds(10) == 10_000)
        #expect(CurlTransfer.milliseconds(0.0001) == 1)
        #expect(CurlTransfer.milliseconds(0) == 0)
        #expect(CurlTransfer.milliseconds(-1) == 0)
        #expect(CurlTransfer.milliseconds(.infinity) == 0)
    }

    @Test func defaultConfiguration() {
        let configuration = CurlTransport.Configuration()
        #expect(configuration.connectTimeout == 10)
        #expect(configuration.requestTimeout == 60)
        #expect(configuration.maxResponseBytes == 268_435_456)
        #expect(configuration.userAgent == "firestore-feed-swift/0.1.0")
        #expect(configuration.maxConnections == 8)
        #expect(configuration.lowSpeedLimit == 1)
        #expect(configuration.lowSpeedTime == 30)
        #expect(configuration.caBundlePath == nil)
        #expect(configuration.proxy == nil)
        #expect(CurlTransport.libcurlVersion.hasPrefix("7.") || CurlTransport.libcurlVersion.hasPrefix("8."))
    }
}
