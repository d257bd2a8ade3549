import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// `Firestore.rawRequest`: the method, resource, query items and body go out as given, through the client's
/// transport and retries; bad input is refused before anything is sent.
@Suite(.timeLimit(.minutes(2))) struct RawRequestTests {
    static let root = "projects/p/databases/(default)/documents"

    @Test func aPatchWithAnUpdateMaskGoesOutAsGiven() async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: #"{"name":"projects/p/databases/(default)/documents/c/a b","fields":{}}"#)
        ])
        let db = try transport.firestore()
        let resource = db.database.documentsRoot + "/" + (try ResourcePath("c/a b")).urlEncoded
        let response = try await db.rawRequest(
            "patch", resource, queryItems: [("updateMask.fieldPaths", "kcal"), ("updateMask.fieldPaths", "a.b")],
            body: ["fields": ["kcal": ["integerValue": "52"]]])
        #expect(response["name"] == "projects/p/databases/(default)/documents/c/a b")
        let request = try #require(transport.requests.first)
        #expect(request.method == "PATCH")
        #expect(
            request.url
                == "http://test.invalid/v1/projects/p/databases/(default)/documents/c/a%20b"
                + "?updateMask.fieldPaths=kcal&updateMask.fieldPaths=a.b")
        #expect(transport.bodies[0] == ["fields": ["kcal": ["integerValue": "52"]]])
        #expect(request.headers.contains(HTTPHeader("Content-Type", "application/json")))
        #expect(request.isIdempotent == false)
    }

    /// A write is sent once: a 503 comes back as the error; a GET is retried.
    @Test func writesAreSentOnceAndReadsRetried() async throws {
        let unavailable = #"{"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}"#
        let transport = ScriptedTransport([
            .response(status: 503, body: unavailable),
            .response(status: 503, body: unavailable),
            .response(status: 200, body: "{}"),
        ])
        let db = try transport.firestore(clock: CountingClock())
        await #expect(throws: FirestoreError(code: .unavailable, message: "busy", httpStatus: 503)) {
            try await db.rawRequest("POST", "\(Self.root)/c", queryItems: [("documentId", "x")], body: [:])
        }
        #expect(try await db.rawRequest("GET", "\(Self.root)/c/x") == [:])
        #expect(transport.calls == ["POST /c?documentId=x", "GET /c/x", "GET /c/x"])
    }

    @Test(arguments: [
        ("PUT", "\(root)/c/a", #"rawRequest takes GET, POST, PATCH or DELETE, not "PUT""#),
        ("GET", "", #"rawRequest needs a percent-encoded resource after /v1/ without a query, not """#),
        (
            "GET", "/\(root)/c/a",
            #"rawRequest needs a percent-encoded resource after /v1/ without a query, not "/\#(root)/c/a""#
        ),
        (
            "GET", "\(root)/c/a?x=1",
            #"rawRequest needs a percent-encoded resource after /v1/ without a query, not "\#(root)/c/a?x=1""#
        ),
        (
            "GET", "\(root)/c/a b",
            #"rawRequest needs a percent-encoded resource after /v1/ without a query, not "\#(root)/c/a b""#
        ),
        (
            "GET", "\(root)/c/a\n",
            "rawRequest needs a percent-encoded resource after /v1/ without a query, not \"\(root)/c/a\n\""
        ),
    ])
    func badInputIsRefusedBeforeSending(method: String, resource: String, message: String) async throws {
        let transport = ScriptedTransport([])
        let db = try transport.firestore()
        await #expect(throws: FirestoreError(code: .invalidArgument, message: message)) {
            try await db.rawRequest(method, resource)
        }
        #expect(transport.calls == [])
    }
}
