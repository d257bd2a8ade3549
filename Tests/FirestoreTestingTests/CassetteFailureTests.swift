import Foundation
import Synchronization
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// The `failure` member of a cassette interaction: recorded by `RecordingTransport` from a live transport's failure,
/// written and read back, refused when malformed, scrubbed like the rest. The recorded cassette is
/// `RecordedFailuresReplayTests`.
@Suite(.timeLimit(.minutes(2))) struct CassetteFailureTests {
    /// A live transport that fails every request with the next error of its list.
    final class FailingTransport: HTTPTransport {
        private let errors: Mutex<[any Error]>
        init(_ errors: [any Error]) { self.errors = Mutex(errors) }
        func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
            let next = errors.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let next { throw FirestoreError(wrapping: next) }
            return HTTPResponse(status: 200, body: Data("{}".utf8))
        }
    }

    static func transportError(_ kind: TransportFailure, _ code: FirestoreError.Code, _ message: String)
        -> FirestoreError
    {
        var error = FirestoreError(code: code, message: message)
        error.transportFailure = kind
        error.requestWasNotSent = kind.requestWasNotSent
        return error
    }

    static let url = "http://127.0.0.1:8080/v1/projects/p/databases/(default)/documents/c/d"

    @Test func aTransportFailureIsRecordedWithTheAddressReplacedAndPassedOn() async throws {
        let live = FailingTransport([
            Self.transportError(
                .refused, .unavailable,
                "could not connect: http://127.0.0.1:8080/v1/projects/p/databases/(default)/documents/c/d "
                    + "(Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server)"),
            FirestoreError(code: .cancelled, message: "request cancelled"),
        ])
        let recorder = RecordingTransport(wrapping: live)
        let refused = await #expect(throws: FirestoreError.self) {
            _ = try await recorder.send(HTTPRequest(method: "GET", url: Self.url))
        }
        #expect(refused?.message.contains("127.0.0.1 port 8080") == true)  // the caller gets the live error
        let cancelled = await #expect(throws: FirestoreError.self) {
            _ = try await recorder.send(HTTPRequest(method: "GET", url: Self.url))
        }
        #expect(cancelled?.code == .cancelled)
        _ = try await recorder.send(HTTPRequest(method: "GET", url: Self.url))
        let interactions = recorder.cassette.interactions
        #expect(interactions.count == 2)  // the cancelled request is not recorded
        #expect(
            interactions.first?.failure
                == Cassette.Failure(
                    kind: .refused, code: .unavailable,
                    message: "could not connect: http://<HOST>:<PORT>/v1/projects/p/databases/(default)/documents/c/d "
                        + "(Failed to connect to <HOST> port <PORT> after 0 ms: Couldn't connect to server)"))
        #expect(interactions.last?.failure == nil)
        #expect(interactions.last?.response.status == 200)
    }

    @Test func aFailureReplaysWithTheReplayedRequestsAddress() throws {
        let failure = Cassette.Failure(
            kind: .timeout, code: .deadlineExceeded, message: "timed out: http://<HOST>:<PORT>/v1/x (after 1 s)")
        let error = failure.error(replaying: HTTPRequest(method: "GET", url: "https://[::1]:9000/v1/x?key=k"))
        #expect(error.code == .deadlineExceeded)
        #expect(error.message == "timed out: http://[::1]:9000/v1/x (after 1 s)")
        #expect(error.transportFailure == .timeout)
        #expect(!error.requestWasNotSent)
        let refused = Cassette.Failure(kind: .unresolved, code: .unavailable, message: "no such host <HOST>")
            .error(replaying: HTTPRequest(method: "GET", url: "http://replay.invalid/v1/x"))
        #expect(refused.message == "no such host replay.invalid")
        #expect(refused.requestWasNotSent)
    }

    @Test func aFailureIsWrittenInsteadOfAResponseAndReadBack() throws {
        let interaction = Cassette.Interaction(
            request: Cassette.Request(method: "GET", path: "/v1/x"),
            failure: Cassette.Failure(kind: .reset, code: .unavailable, message: "reset"), elapsed: 0.5,
            duration: 0.25)
        let cassette = Cassette(interactions: [interaction])
        let text = String(decoding: cassette.jsonData(), as: UTF8.self)
        #expect(
            text == """
                {
                  "format": "firestore-feed-cassette",
                  "interactions": [
                    {
                      "duration": 0.25,
                      "elapsed": 0.5,
                      "failure": {
                        "code": "UNAVAILABLE",
                        "kind": "reset",
                        "message": "reset"
                      },
                      "request": {
                        "method": "GET",
                        "path": "/v1/x"
                      }
                    }
                  ],
                  "version": 1
                }

                """)
        let read = try Cassette(jsonData: cassette.jsonData())
        #expect(read == cassette)
        #expect(read.jsonData() == cassette.jsonData())
    }

    @Test(arguments: [
        (
            #""failure":{"code":"UNAVAILABLE","kind":"reset","message":"m"},"response":{"status":200}"#,
            "cassette: interactions[0]: has both a response and a failure"
        ),
        (
            #""failure":{"code":"UNAVAILABLE","kind":"melted","message":"m"}"#,
            "cassette: interactions[0].failure.kind: unknown kind \"melted\" (known: timeout, stalled, reset, refused, "
                + "unresolved, truncated)"
        ),
        (#""failure":{"kind":"reset","message":"m"}"#, "cassette: interactions[0].failure.code: missing"),
        (#""failure":{"code":"","kind":"reset","message":"m"}"#, "cassette: interactions[0].failure.code: empty"),
        (
            #""failure":{"code":"UNAVAILABLE","kind":"reset","message":7}"#,
            "cassette: interactions[0].failure.message: expected a string, found number"
        ),
        (#""failure":[]"#, "cassette: interactions[0].failure: expected an object, found array"),
    ])
    func aMalformedFailureIsRefusedNamingTheMember(member: String, message: String) {
        let json =
            #"{"format":"firestore-feed-cassette","version":1,"interactions":[{"request":{"method":"GET","path":"/v1/x"},"#
            + member + "}]}"
        let error = #expect(throws: FirestoreError.self) { try Cassette(jsonData: Data(json.utf8)) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == message)
    }

    @Test func aSecretInAFailureMessageIsScrubbed() {
        let interaction = Cassette.Interaction(
            request: Cassette.Request(method: "GET", path: "/v1/x"),
            failure: Cassette.Failure(kind: .reset, code: .unavailable, message: "reset while sending s3cr3t-value"))
        let scrubbed = SecretScrubber(literals: ["s3cr3t-value"]).scrub(interaction)
        #expect(scrubbed.failure?.message == "reset while sending <REDACTED>")
    }
}
