import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `firestore-feed serve-cassette` within limits (issue 24: 2,000 idle connections made 2,004 threads, ten 60 MB
/// bodies held 1.7 GB, a request with two `Content-Length` headers was answered): connections are capped, bodies too,
/// silent connections are closed, and ambiguous framing is refused (RFC 9112). Raw sockets against the CLI serving
/// `Recordings/values.json`; no emulator.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServeCassetteLimitsTests {
    /// The whole response a refusal gets: status line, length, `Connection: close`, the reason.
    static func refusal(_ status: String, _ text: String, extra: String = "") -> String {
        let body = "\(status.drop { $0 != " " }.dropFirst()): \(text)\n"
        return "HTTP/1.1 \(status)\r\n\(extra)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    static func port(_ host: String) -> Int { Int(host.split(separator: ":").last ?? "") ?? 0 }

    /// Each request with malformed or ambiguous framing gets its status and reason, and its connection is closed.
    /// Before issue 24 the first was answered from the cassette (and the others as well, or with other words).
    @Test func ambiguousFramingIsRefusedAndTheConnectionClosed() async throws {
        let (server, host) = try await ServeCassetteTests.serve("values.json")
        defer { ServeCassetteTests.stop(server) }
        let get = "GET /v1/projects/demo-values/databases/(default)/documents/types/all HTTP/1.1\r\n"
        let cases: [(String, String)] = [
            (
                get + "Host: a\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
                Self.refusal("400 Bad Request", "2 Content-Length headers (RFC 9112 section 6.3)")
            ),
            (
                "POST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
                Self.refusal("400 Bad Request", "2 Content-Length headers (RFC 9112 section 6.3)")
            ),
            (
                "POST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
                Self.refusal("400 Bad Request", "both Transfer-Encoding and Content-Length (RFC 9112 section 6.3)")
            ),
            (
                "POST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n",
                Self.refusal("400 Bad Request", "Content-Length \"+5\" is not a number of bytes (RFC 9112 section 6.3)")
            ),
            (
                "POST /v1/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
                Self.refusal(
                    "400 Bad Request",
                    "Transfer-Encoding \"chunked, gzip\" does not end with one chunked (RFC 9112 section 6.3)")
            ),
            (
                "POST /v1/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
                Self.refusal("501 Not Implemented", "transfer coding \"gzip\" is not supported (RFC 9112 section 6.1)")
            ),
            (
                get + "\r\n",
                Self.refusal("400 Bad Request", "0 Host headers in an HTTP/1.1 request, not 1 (RFC 9112 section 3.2)")
            ),
            (
                get + "Host : a\r\n\r\n",
                Self.refusal(
                    "400 Bad Request", "white space between a header's name and its colon (RFC 9112 section 5.1)")
            ),
            (
                get + "Host: a\r\nX-Note: one\r\n two\r\n\r\n",
                Self.refusal("400 Bad Request", "a header line folded onto the one before (RFC 9112 section 5.2)")
            ),
        ]
        for (request, response) in cases {
            let connection = try await RawConnection.open(port: Self.port(host))
            try await connection.send(request)
            let (text, closed) = try await connection.read(seconds: 10)
            #expect(text == response, "\(request.debugDescription)")
            #expect(closed, "\(request.debugDescription)")
        }
    }

    /// 32 connections (the default) are served at once; the 33rd gets 503 at once, and the server's threads stay
    /// within the cap: 100 idle connections add at most 32 (before issue 24: one thread each, no 503). A connection
    /// that ends frees its place.
    @Test func connectionsOverTheCapGet503() async throws {
        let (server, host) = try await ServeCassetteTests.serve("values.json")
        defer { ServeCassetteTests.stop(server) }
        let pid = server.process.processIdentifier
        // The server's connection threads (named "serve-cassette"), not every thread of the process: the runtime's
        // own threads come and go as they like.
        func threads() -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.filter { task in
                let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
                return name == "serve-cassette\n"
            }.count
        }
        var open: [RawConnection] = []
        for _ in 0..<32 { open.append(try await RawConnection.open(port: Self.port(host))) }
        let refused = try await RawConnection.open(port: Self.port(host))
        let (text, closed) = try await refused.read(seconds: 10)
        #expect(
            text
                == Self.refusal(
                    "503 Service Unavailable", "32 connections are open, the most allowed (--max-connections)",
                    extra: "Retry-After: 1\r\n"))
        #expect(closed)
        #expect(await eventually(seconds: 30) { threads() == 32 }, "\(threads()) connection threads for 32")
        for _ in 0..<67 { open.append(try await RawConnection.open(port: Self.port(host))) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(threads() <= 32, "\(threads()) connection threads")

        // One of the 32 leaves: a new connection is served (the cassette's own 400 for an unknown request).
        open.removeFirst()
        var served = false
        let deadline = ContinuousClock.now + .seconds(10)
        while !served, ContinuousClock.now < deadline {
            let connection = try await RawConnection.open(port: Self.port(host))
            try await connection.send("GET /nothing HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            served = try await connection.read(seconds: 5).text.hasPrefix(
                "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n")
        }
        #expect(served)
    }

    /// `--idle-timeout 1`: a silent connection is closed after a second; one that stops inside a request gets 408.
    @Test func silentConnectionsAreClosed() async throws {
        let (server, host) = try await ServeCassetteTests.serve("values.json", ["--idle-timeout", "1"])
        defer { ServeCassetteTests.stop(server) }
        // Taken before the connection opens, so however late this task resumes after the open, the server's idle
        // timer (started when it accepted) cannot have started before it.
        let started = ContinuousClock.now
        let silent = try await RawConnection.open(port: Self.port(host))
        let (text, closed) = try await silent.read(seconds: 10)
        #expect(text == "")
        #expect(closed)
        #expect(ContinuousClock.now - started >= .milliseconds(900))
        let stalled = try await RawConnection.open(port: Self.port(host))
        try await stalled.send("GET /v1/x HTTP/1.1\r\nHost: a\r\n")
        let (answer, ended) = try await stalled.read(seconds: 10)
        #expect(answer == Self.refusal("408 Request Timeout", "nothing sent for 1.0 seconds inside a request head"))
        #expect(ended)
    }

    /// `--max-body-bytes 1024`: a longer body is refused with 413 before it is read, by `Content-Length` or chunk
    /// by chunk.
    @Test func bodiesOverTheLimitGet413() async throws {
        let (server, host) = try await ServeCassetteTests.serve("values.json", ["--max-body-bytes", "1024"])
        defer { ServeCassetteTests.stop(server) }
        let declared = try await RawConnection.open(port: Self.port(host))
        try await declared.send("POST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 2048\r\n\r\n")
        #expect(
            try await declared.read(seconds: 10)
                == (Self.refusal("413 Content Too Large", "a body of 2048 bytes, over the limit of 1024"), true))
        let chunked = try await RawConnection.open(port: Self.port(host))
        try await chunked.send(
            "POST /v1/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n"
                + String(repeating: "x", count: 1024) + "\r\n1\r\nx\r\n0\r\n\r\n")
        #expect(
            try await chunked.read(seconds: 10)
                == (Self.refusal("413 Content Too Large", "a chunked body over the limit of 1024 bytes"), true))
    }
}
