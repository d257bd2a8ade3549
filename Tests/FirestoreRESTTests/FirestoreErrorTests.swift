import Foundation
import Testing

@testable import FirestoreREST

@Suite("FirestoreError", .timeLimit(.minutes(2)))
struct FirestoreErrorTests {
    // MARK: The three body forms

    @Test func objectForm() {
        let body =
            #"{"error":{"code":404,"message":"Document \"projects/p/databases/(default)/documents/c/d\" not found.","status":"NOT_FOUND"}}"#
        let error = FirestoreError(status: 404, body: Data(body.utf8))
        #expect(error.code == .notFound)
        #expect(error.message == #"Document "projects/p/databases/(default)/documents/c/d" not found."#)
        #expect(error.httpStatus == 404)
        #expect(
            error.description
                == #"not-found (HTTP 404): Document "projects/p/databases/(default)/documents/c/d" not found."#)
    }

    @Test func arrayWrappedForm() {
        let body = #"[{"error":{"code":400,"message":"Cursor has too many values.","status":"INVALID_ARGUMENT"}}]"#
        let error = FirestoreError(status: 400, body: Data(body.utf8))
        #expect(error.code == .invalidArgument)
        #expect(error.message == "Cursor has too many values.")
        #expect(error.httpStatus == 400)
    }

    @Test func errorElementAfterDocumentsInBody() {
        let body = """
            [{"document":{"name":"projects/p/databases/(default)/documents/c/d1","fields":{}},"readTime":"2024-05-01T00:00:00Z"},
            {"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}]
            """
        let error = FirestoreError(status: 200, body: Data(body.utf8))
        #expect(error.code == .unavailable)
        #expect(error.message == "The service is currently unavailable.")
    }

    @Test func errorElementAfterDocumentsInRunQuery() throws {
        let body = try json(
            """
            [{"document":{"name":"projects/p/databases/(default)/documents/c/d1","fields":{}},"readTime":"2024-05-01T00:00:00Z"},
             {"document":{"name":"projects/p/databases/(default)/documents/c/d2","fields":{}},"readTime":"2024-05-01T00:00:00Z"},
             {"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}]
            """)
        let error = #expect(throws: FirestoreError.self) { try Firestore.decodeRunQuery(body) }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "The service is currently unavailable.")
    }

    @Test func errorObjectAsWholeRunQueryBody() throws {
        let body = try json(
            #"{"error":{"code":400,"message":"Cursor has too many values.","status":"INVALID_ARGUMENT"}}"#)
        let error = #expect(throws: FirestoreError.self) { try Firestore.decodeRunQuery(body) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "Cursor has too many values.")
    }

    @Test func arrayWrappedErrorInBatchGet() throws {
        let body = try json(
            #"[{"error":{"code":403,"message":"Missing or insufficient permissions.","status":"PERMISSION_DENIED"}}]"#)
        let error = #expect(throws: FirestoreError.self) { try Firestore.decodeBatchGet(body) }
        #expect(error?.code == .permissionDenied)
        #expect(error?.message == "Missing or insufficient permissions.")
    }

    // MARK: Bodies without the usual parts

    @Test func bodyWithoutMessage() {
        let error = FirestoreError(status: 500, body: Data(#"{"error":{"code":500,"status":"UNKNOWN"}}"#.utf8))
        #expect(error.code == .unknown)
        #expect(error.message == "")
        #expect(error.httpStatus == 500)
        #expect(error.description == "unknown (HTTP 500)")
    }

    @Test func bodyWithoutStatusUsesTheCodeMember() {
        let error = FirestoreError(status: 409, body: Data(#"{"error":{"code":404,"message":"gone"}}"#.utf8))
        #expect(error.code == .notFound)
        #expect(error.message == "gone")
        #expect(error.httpStatus == 409)
    }

    @Test func bodyWithoutStatusOrCodeUsesTheHTTPStatus() {
        let error = FirestoreError(status: 429, body: Data(#"{"error":{"message":"slow down"}}"#.utf8))
        #expect(error.code == .resourceExhausted)
        #expect(error.message == "slow down")
    }

    @Test func htmlBodyFrom502IsInternal() {
        let html = "<html><head><title>502 Bad Gateway</title></head><body>Bad Gateway</body></html>"
        let error = FirestoreError(status: 502, body: Data(html.utf8))
        #expect(error.code == .internal)
        #expect(error.message == html)
        #expect(error.httpStatus == 502)
        #expect(error.description == "internal (HTTP 502): " + html)
    }

    @Test func longNonJSONBodyKeepsFirst200Bytes() {
        let body = String(repeating: "x", count: 150) + String(repeating: "y", count: 150)
        let error = FirestoreError(status: 503, body: Data(body.utf8))
        #expect(error.code == .unavailable)
        #expect(error.message == String(repeating: "x", count: 150) + String(repeating: "y", count: 50))
    }

    @Test func emptyBodyNamesTheHTTPStatus() {
        let error = FirestoreError(status: 503, body: Data())
        #expect(error.code == .unavailable)
        #expect(error.message == "HTTP 503")
    }

    @Test func jsonBodyWithoutErrorMemberUsesHTTPStatus() {
        let error = FirestoreError(status: 404, body: Data(#"{"something":"else"}"#.utf8))
        #expect(error.code == .notFound)
        #expect(error.message == #"{"something":"else"}"#)
    }

    @Test func emulatorEscapedSlashesAndNewlinesAreDecoded() {
        let body =
            #"{"error":{"code":403,"message":"Null value error. \nfalse for 'get' @ L5 at projects\/p","status":"PERMISSION_DENIED"}}"#
        let error = FirestoreError(status: 403, body: Data(body.utf8))
        #expect(error.code == .permissionDenied)
        #expect(error.message == "Null value error. \nfalse for 'get' @ L5 at projects/p")
    }

    // MARK: Codes

    @Test(arguments: [
        (400, "INVALID_ARGUMENT"),
        (401, "UNAUTHENTICATED"),
        (403, "PERMISSION_DENIED"),
        (404, "NOT_FOUND"),
        (409, "ABORTED"),
        (429, "RESOURCE_EXHAUSTED"),
        (499, "CANCELLED"),
        (500, "INTERNAL"),
        (501, "UNIMPLEMENTED"),
        (502, "INTERNAL"),
        (503, "UNAVAILABLE"),
        (504, "DEADLINE_EXCEEDED"),
    ])
    func httpStatusMapping(status: Int, expected: String) {
        #expect(FirestoreError.Code.forHTTPStatus(status).rawValue == expected)
        #expect(FirestoreError(status: status, body: Data("not json".utf8)).code.rawValue == expected)
    }

    @Test(arguments: [
        (FirestoreError.Code.notFound, "not-found"),
        (.invalidArgument, "invalid-argument"),
        (.failedPrecondition, "failed-precondition"),
        (.resourceExhausted, "resource-exhausted"),
        (.deadlineExceeded, "deadline-exceeded"),
        (.permissionDenied, "permission-denied"),
        (.alreadyExists, "already-exists"),
        (.internal, "internal"),
        (.unavailable, "unavailable"),
        (.unauthenticated, "unauthenticated"),
        (.outOfRange, "out-of-range"),
        (.dataLoss, "data-loss"),
    ])
    func codeNames(code: FirestoreError.Code, expected: String) {
        #expect(code.name == expected)
        #expect(code.description == expected)
    }

    @Test func codeFromRawStatus() {
        #expect(FirestoreError.Code(rawValue: "NOT_FOUND") == .notFound)
        #expect(FirestoreError.Code.notFound.rawValue == "NOT_FOUND")
        #expect(
            FirestoreError(status: 400, body: Data(#"{"error":{"status":"FAILED_PRECONDITION"}}"#.utf8)).code
                == .failedPrecondition)
    }

    @Test func descriptionWithoutHTTPStatus() {
        let error = FirestoreError(code: .invalidArgument, message: "bad")
        #expect(error.description == "invalid-argument: bad")
        #expect(error.httpStatus == nil)
    }

    /// A security-rules denial from the emulator keeps its text, leading line break included, but prints without
    /// the white space around it.
    @Test func descriptionTrimsTheMessage() {
        let error = FirestoreError(
            status: 403,
            body: Data(
                #"{"error":{"code":403,"message":"\nfalse for 'get' @ L5","status":"PERMISSION_DENIED"}}"#.utf8))
        #expect(error.message == "\nfalse for 'get' @ L5")
        #expect(error.description == "permission-denied (HTTP 403): false for 'get' @ L5")
        #expect(FirestoreError(code: .unknown, message: " \n ").description == "unknown")
    }

    // MARK: Index URL

    @Test func indexURLFromFailedPrecondition() {
        let body =
            #"{"error":{"code":400,"message":"The query requires an index. You can create it here: https:\/\/console.firebase.google.com\/v1\/r\/project\/demo-p\/firestore\/indexes?create_composite=ClBwcm9qZWN0cy9kZW1vLXAvZGF0YWJhc2Vz","status":"FAILED_PRECONDITION"}}"#
        let error = FirestoreError(status: 400, body: Data(body.utf8))
        #expect(error.code == .failedPrecondition)
        #expect(
            error.indexURL
                == "https://console.firebase.google.com/v1/r/project/demo-p/firestore/indexes?create_composite=ClBwcm9qZWN0cy9kZW1vLXAvZGF0YWJhc2Vz"
        )
    }

    @Test func indexURLOlderFormFollowedByText() {
        let error = FirestoreError(
            code: .failedPrecondition,
            message:
                "The query requires an index. You can create it here: https://console.firebase.google.com/project/p/database/firestore/indexes?create_composite=Egh0ZXN0 (then retry)"
        )
        #expect(
            error.indexURL
                == "https://console.firebase.google.com/project/p/database/firestore/indexes?create_composite=Egh0ZXN0")
    }

    @Test func noIndexURLOtherwise() {
        #expect(
            FirestoreError(code: .failedPrecondition, message: "The requested 'read_time' is too old.").indexURL == nil)
        #expect(
            FirestoreError(code: .invalidArgument, message: "see https://console.firebase.google.com/v1/r/project/p")
                .indexURL == nil)
    }

    // MARK: Index URL as a URL (firestore-rest.md §1.8)

    @Test func indexCreationURLCurrentForm() throws {
        let body =
            #"{"error":{"code":400,"message":"The query requires an index. You can create it here: https:\/\/console.firebase.google.com\/v1\/r\/project\/demo-p\/firestore\/indexes?create_composite=ClBwcm9qZWN0cy9kZW1vLXAvZGF0YWJhc2Vz","status":"FAILED_PRECONDITION"}}"#
        let url = try #require(FirestoreError(status: 400, body: Data(body.utf8)).indexCreationURL)
        #expect(
            url.absoluteString
                == "https://console.firebase.google.com/v1/r/project/demo-p/firestore/indexes?create_composite=ClBwcm9qZWN0cy9kZW1vLXAvZGF0YWJhc2Vz"
        )
        #expect(url.host == "console.firebase.google.com")
        #expect(url.path == "/v1/r/project/demo-p/firestore/indexes")
        #expect(url.query == "create_composite=ClBwcm9qZWN0cy9kZW1vLXAvZGF0YWJhc2Vz")
    }

    @Test func indexCreationURLOlderForm() throws {
        let error = FirestoreError(
            code: .failedPrecondition,
            message:
                "The query requires an index. You can create it here: https://console.firebase.google.com/project/p/database/firestore/indexes?create_composite=Egh0ZXN0"
        )
        let url = try #require(error.indexCreationURL)
        #expect(url.path == "/project/p/database/firestore/indexes")
        #expect(url.query == "create_composite=Egh0ZXN0")
    }

    @Test func indexCreationURLDropsSentencePunctuation() {
        let error = FirestoreError(
            code: .failedPrecondition,
            message:
                "The query requires an index: https://console.firebase.google.com/v1/r/project/p/firestore/indexes?create_composite=Egh0ZXN0."
        )
        #expect(
            error.indexCreationURL?.absoluteString
                == "https://console.firebase.google.com/v1/r/project/p/firestore/indexes?create_composite=Egh0ZXN0")
    }

    @Test func noIndexCreationURLOtherwise() {
        #expect(
            FirestoreError(code: .failedPrecondition, message: "The requested 'read_time' is too old.").indexCreationURL
                == nil)
        #expect(
            FirestoreError(
                code: .failedPrecondition, message: "see https://console.firebase.google.com/project/p/overview"
            )
            .indexCreationURL == nil)
        #expect(
            FirestoreError(
                code: .invalidArgument,
                message: "https://console.firebase.google.com/v1/r/project/p/firestore/indexes?x=1"
            )
            .indexCreationURL == nil)
    }
}
