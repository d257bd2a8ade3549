import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// Field case F-31: POST requests are matched with their body, and a miss names the closest recording.
@Suite(.timeLimit(.minutes(2))) struct CassetteMatchingTests {
    static let runQueryPath = "/v1/projects/p/databases/(default)/documents:runQuery"

    static func runQueryRow(_ id: String, _ status: String) -> String {
        #"[{"document":{"name":"projects/p/databases/(default)/documents/tickets/\#(id)","#
            + #""fields":{"status":{"stringValue":"\#(status)"}},"createTime":"2024-05-01T00:00:00Z","#
            + #""updateTime":"2024-05-01T00:00:00Z"},"readTime":"2024-05-01T00:00:01Z"}]"#
    }

    /// Records `status == "open"` then `status == "closed"` through the client, each answered differently.
    static func recordedTickets() async throws -> Cassette {
        let server = ScriptedTransport { request, _ in
            let body = String(decoding: request.body ?? Data(), as: UTF8.self)
            let status = body.contains(#""open""#) ? "open" : "closed"
            return HTTPResponse(status: 200, body: Data(runQueryRow(status == "open" ? "t1" : "t2", status).utf8))
        }
        let recorder = RecordingTransport(wrapping: server)
        let db = Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: recorder, isEmulator: false)
        let tickets = db.collection("tickets")
        _ = try await tickets.whereField("status", isEqualTo: "open").getDocuments()
        _ = try await tickets.whereField("status", isEqualTo: "closed").getDocuments()
        return recorder.cassette
    }

    static func client(_ transport: any HTTPTransport) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "https://replay.invalid/v1/",
            credentials: StaticTokenCredentials(token: "ya29.other-token"), transport: transport,
            isEmulator: false, retryPolicy: .none)
    }

    @Test func postsToTheSameEndpointAreToldApartByTheirBody() async throws {
        let cassette = try await Self.recordedTickets()
        #expect(cassette.interactions.count == 2)
        let replay = ReplayTransport(cassette: cassette)
        let tickets = try Self.client(replay).collection("tickets")
        // Replayed in the other order: each body finds its own answer.
        let closed = try await tickets.whereField("status", isEqualTo: "closed").getDocuments()
        let open = try await tickets.whereField("status", isEqualTo: "open").getDocuments()
        #expect(closed.documents.map(\.documentID) == ["t2"])
        #expect(open.documents.map(\.documentID) == ["t1"])
        #expect(replay.unplayedIndices == [])
    }

    @Test func aMissInStrictModeShowsTheClosestRecordingAndWhatDiffered() async throws {
        let replay = ReplayTransport(cassette: try await Self.recordedTickets(), name: "tickets.json")
        let tickets = try Self.client(replay).collection("tickets")
        do {
            _ = try await tickets.whereField("status", isEqualTo: "pending").getDocuments()
            Issue.record("an unrecorded query must fail")
        } catch let error as FirestoreError {
            #expect(error.code == .failedPrecondition)
            #expect(
                error.message == """
                    tickets.json: no recorded interaction matches POST \(Self.runQueryPath) with body \
                    {"structuredQuery":{"from":[{"collectionId":"tickets"}],"where":{"fieldFilter":{"field":{"fieldPath":"status"},\
                    "op":"EQUAL","value":{"stringValue":"pending"}}}}}; closest is interaction 0, POST \(Self.runQueryPath): \
                    body at structuredQuery.where.fieldFilter.value.stringValue: recorded "open", sent "pending"
                    """)
        }
        do {
            _ = try await Self.client(replay).document("tickets/t1").getDocument()
            Issue.record("an unrecorded GET must fail")
        } catch let error as FirestoreError {
            #expect(
                error.message == """
                    tickets.json: no recorded interaction matches GET /v1/projects/p/databases/(default)/documents/tickets/t1; \
                    closest is interaction 0, POST \(Self.runQueryPath): method: recorded POST, sent GET; path: recorded \
                    \(Self.runQueryPath), sent /v1/projects/p/databases/(default)/documents/tickets/t1; body: recorded \
                    \(#"{"structuredQuery":{"from":[{"collectionId":"tickets"}],"where":{"fieldFilter":{"field":{"fieldPath":"status"},"op":"EQUAL","value":{"stringValue":"open"}}}}}"#.utf8.count) bytes, sent none
                    """)
        }
    }

    @Test func keyOrderAndWhiteSpaceDoNotMatterAndNoBodyEqualsAnEmptyBody() async throws {
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(
                    method: "POST", path: "/x", body: Data(#"{ "b": [1, {"d": 2, "c": 3}], "a": "x" }"#.utf8)),
                response: Cassette.Response(status: 200, body: Data("first".utf8))),
            Cassette.Interaction(
                request: Cassette.Request(method: "DELETE", path: "/y", body: Data()),
                response: Cassette.Response(status: 200, body: Data("second".utf8))),
        ])
        let replay = ReplayTransport(cassette: cassette)
        let first = try await replay.send(
            HTTPRequest(
                method: "POST", url: "http://any.invalid:1/x", body: Data(#"{"a":"x","b":[1,{"c":3,"d":2}]}"#.utf8)))
        let second = try await replay.send(HTTPRequest(method: "delete", url: "http://other.invalid/y", body: nil))
        #expect(first.body == Data("first".utf8))
        #expect(second.body == Data("second".utf8))
    }

    @Test func headersAreIgnoredUnlessTheMatcherNamesThem() async throws {
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(method: "GET", path: "/doc"),
                response: Cassette.Response(status: 403, body: Data("anonymous".utf8))),
            Cassette.Interaction(
                request: Cassette.Request(
                    method: "GET", path: "/doc", headers: [HTTPHeader("authorization", "Bearer <REDACTED>")]),
                response: Cassette.Response(status: 200, body: Data("owner".utf8))),
        ])
        let byOrder = ReplayTransport(cassette: cassette)
        let withToken = HTTPRequest(
            method: "GET", url: "http://h/doc", headers: [HTTPHeader("Authorization", "Bearer owner")])
        #expect(try await byOrder.send(withToken).body == Data("anonymous".utf8))

        let byHeader = ReplayTransport(
            cassette: cassette, options: .init(matcher: CassetteMatcher.standard.adding(.header("authorization"))))
        #expect(try await byHeader.send(withToken).body == Data("owner".utf8))
        #expect(try await byHeader.send(HTTPRequest(method: "GET", url: "http://h/doc")).body == Data("anonymous".utf8))
    }

    @Test func queryOrderAndNeedlessPercentEncodingDoNotMatter() {
        let matcher = CassetteMatcher.standard
        let recorded = Cassette.Request(method: "GET", path: "/v1/projects/p/databases/(default)/documents/c?b=2&a=1")
        let sent = Cassette.Request(method: "GET", path: "/v1/projects/p/databases/%28default%29/documents/c?a=1&b=2")
        #expect(matcher.matches(recorded: recorded, sent: sent))
        let slash = Cassette.Request(method: "GET", path: "/v1/projects/p/databases/(default)/documents/c%2fd")
        let twoSegments = Cassette.Request(method: "GET", path: "/v1/projects/p/databases/(default)/documents/c/d")
        #expect(
            matcher.differences(recorded: slash, sent: twoSegments) == [
                "path: recorded /v1/projects/p/databases/(default)/documents/c%2fd, "
                    + "sent /v1/projects/p/databases/(default)/documents/c/d"
            ])
        #expect(
            matcher.differences(
                recorded: recorded,
                sent: Cassette.Request(method: "GET", path: "/v1/projects/p/databases/(default)/documents/c"))
                == ["query: recorded b=2&a=1, sent (none)"])
    }

    @Test func customComponents() {
        let matcher = CassetteMatcher([.method, .custom("same length") { $0.path.count == $1.path.count }])
        #expect(
            matcher.matches(
                recorded: Cassette.Request(method: "GET", path: "/abc"),
                sent: Cassette.Request(method: "GET", path: "/xyz")))
        #expect(
            matcher.differences(
                recorded: Cassette.Request(method: "GET", path: "/abc"),
                sent: Cassette.Request(method: "GET", path: "/wxyz")) == ["same length differs"])
    }
}
