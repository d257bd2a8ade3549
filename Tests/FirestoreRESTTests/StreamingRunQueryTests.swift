import Foundation
import Testing

@testable import FirestoreREST

/// The streaming runQuery decoder gives what the tree decoder gives, element by element.
@Suite(.timeLimit(.minutes(2))) struct StreamingRunQueryTests {
    static let bodies = [
        #"[{"readTime":"2024-05-01T00:00:00Z","skippedResults":2},{"document":{"name":"projects/p/databases/(default)/documents/c/d3","fields":{}},"readTime":"2024-05-01T00:00:00Z"}]"#,
        #"[{"readTime":"2024-05-01T00:00:00Z"}]"#,
        #"  [ {"document":{"name":"projects/p/databases/(default)/documents/c/a","fields":{"n":{"integerValue":"1"}},"updateTime":"2024-05-01T00:00:00.5Z"},"readTime":"2024-05-01T00:00:01Z"},"#
            + #" {"readTime":"2024-05-01T00:00:01Z","done":true} ]  "#,
    ]

    @Test(arguments: bodies)
    func sameAsTheTreeDecoder(body: String) throws {
        let streamed = try Firestore.decodeRunQuery(body: Data(body.utf8))
        let tree = try Firestore.decodeRunQuery(JSONValue.parse(body))
        #expect(streamed == tree)
    }

    @Test func errorsNameTheirCause() {
        #expect(throws: FirestoreError(code: .permissionDenied, message: "no", httpStatus: 200)) {
            try Firestore.decodeRunQuery(
                body: Data(
                    #"[{"readTime":"2024-05-01T00:00:00Z"},{"error":{"code":403,"message":"no","status":"PERMISSION_DENIED"}}]"#
                        .utf8))
        }
        #expect(
            throws: FirestoreError(
                code: .internal,
                message: "runQuery response is not JSON: invalid JSON at byte 36: unexpected end of input in an array")
        ) {
            try Firestore.decodeRunQuery(body: Data(#"[{"readTime":"2024-05-01T00:00:00Z"}"#.utf8))
        }
        #expect(throws: FirestoreError(code: .internal, message: "runQuery response carries no readTime")) {
            try Firestore.decodeRunQuery(body: Data("[]".utf8))
        }
        #expect(throws: FirestoreError(code: .internal, message: "runQuery element 0 is a number, not an object")) {
            try Firestore.decodeRunQuery(body: Data("[1]".utf8))
        }
        #expect(throws: FirestoreError(code: .internal, message: "runQuery response is an object, not an array")) {
            try Firestore.decodeRunQuery(body: Data(#"{"readTime":"2024-05-01T00:00:00Z"}"#.utf8))
        }
    }
}
