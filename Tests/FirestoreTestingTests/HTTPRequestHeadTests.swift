import FirestoreREST
import Testing

@testable import FirestoreTesting

/// How `serve-cassette` frames a request from its head (RFC 9112): the body's length is known for sure, or the
/// request is refused. No network.
@Suite(.timeLimit(.minutes(1))) struct HTTPRequestHeadTests {
    static func parse(_ lines: [String], maxBodyBytes: Int = 100) -> Result<
        HTTPRequestHead, HTTPRequestHead.Refusal
    > {
        HTTPRequestHead.parse(lines.joined(separator: "\r\n"), maxBodyBytes: maxBodyBytes)
    }

    @Test func framedRequests() throws {
        let get = try Self.parse(["GET /v1/a?b=c HTTP/1.1", "Host: h", "Accept:  */* "]).get()
        #expect(get.method == "GET")
        #expect(get.target == "/v1/a?b=c")
        #expect(get.headers == [HTTPHeader("Host", "h"), HTTPHeader("Accept", "*/*")])
        #expect(get.body == .none)
        #expect(get.keepAlive)
        #expect(!get.expectsContinue)
        let post = try Self.parse(["POST /x HTTP/1.1", "host: h", "Content-Length: 42", "Expect: 100-continue"]).get()
        #expect(post.body == .length(42))
        #expect(post.expectsContinue)
        #expect(try Self.parse(["POST /x HTTP/1.1", "Host: h", "Transfer-Encoding: Chunked"]).get().body == .chunked)
        #expect(try Self.parse(["POST /x HTTP/1.1", "Host: h", "Content-Length: 0"]).get().body == .none)
        #expect(try Self.parse(["GET /x HTTP/1.1", "Host: h", "Connection: close"]).get().keepAlive == false)
        // HTTP/1.0 needs no Host and closes unless asked to keep the connection.
        #expect(try Self.parse(["GET /x HTTP/1.0"]).get().keepAlive == false)
        #expect(try Self.parse(["GET /x HTTP/1.0", "Connection: keep-alive"]).get().keepAlive)
    }

    @Test(arguments: [
        (["GET /x HTTP/1.1", "Host: h", "Content-Length: 1", "Content-Length: 1"], 400, "2 Content-Length headers"),
        (["GET /x HTTP/1.1", "Host: h", "Content-Length: 1, 1"], 400, "Content-Length \"1, 1\" is not a number"),
        (["GET /x HTTP/1.1", "Host: h", "Content-Length: -1"], 400, "Content-Length \"-1\" is not a number"),
        (["GET /x HTTP/1.1", "Host: h", "Content-Length: 99999999999999999999"], 400, "Content-Length \"9999"),
        (["GET /x HTTP/1.1", "Host: h", "Content-Length: 101"], 413, "a body of 101 bytes, over the limit of 100"),
        (["GET /x HTTP/1.1", "Host: h", "Content-Length: 1", "Transfer-Encoding: chunked"], 400, "both Transfer"),
        (
            ["GET /x HTTP/1.1", "Host: h", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], 400,
            "Transfer-Encoding \"chunked, chunked\""
        ),
        (["GET /x HTTP/1.1", "Host: h", "Transfer-Encoding: identity"], 400, "Transfer-Encoding \"identity\""),
        (["GET /x HTTP/1.1", "Host: h", "Transfer-Encoding: gzip, chunked"], 501, "transfer coding \"gzip\""),
        (["GET /x HTTP/1.1"], 400, "0 Host headers"),
        (["GET /x HTTP/1.1", "Host: a", "Host: b"], 400, "2 Host headers"),
        (["GET /x HTTP/1.1", "Host : h"], 400, "white space between a header's name and its colon"),
        (["GET /x HTTP/1.1", "Host: h", " folded"], 400, "a header line folded"),
        (["GET /x HTTP/1.1", "Host: h", ": no name"], 400, "a header line without a name"),
        (["GET /x HTTP/1.1", "Host: h", "no colon"], 400, "a header line without a name"),
        (["GET x HTTP/1.1", "Host: h"], 400, "request line \"GET x HTTP/1.1\" is not"),
        (["GET /x HTTP/2", "Host: h"], 400, "request line"),
    ])
    func refusedRequests(lines: [String], status: Int, reason: String) {
        guard case .failure(let refusal) = Self.parse(lines) else {
            Issue.record("accepted: \(lines)")
            return
        }
        #expect(refusal.status == status)
        #expect(refusal.reason.hasPrefix(reason), "\(refusal.reason)")
    }
}
