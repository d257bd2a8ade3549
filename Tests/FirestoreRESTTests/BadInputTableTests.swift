import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The bad-input table of the reliability issue: each malformed input, as it reaches the client (an HTTP
/// response to a runQuery or batchGet, or an argument), gives its exact error naming where the fault is:
/// the document path and field path, the stream element, or the byte offset. None traps.
///
/// `FirestoreValueRESTTests`, `RunQueryDecodingTests`, `FirestoreErrorTests` and `HostileInputTests` check
/// the decoders one by one, mostly for the kind of error; this table sends each input through the client's
/// own request path and asserts the whole error (code, message, HTTP status).
@Suite(.timeLimit(.minutes(2))) struct BadInputTableTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let label: String
        let status: Int
        let body: String
        let expected: FirestoreError
        var testDescription: String { label }
    }

    static let root = "projects/p/databases/(default)/documents"
    static let readTime = "2024-05-01T12:00:00.5Z"

    /// A runQuery body with one document `c/d` whose `fields` object is `fields` (JSON text).
    static func runQueryBody(fields: String, times: String = #""updateTime":"2024-05-01T11:00:00Z""#) -> String {
        #"[{"document":{"name":"\#(root)/c/d","fields":\#(fields),\#(times)},"readTime":"\#(readTime)"}]"#
    }

    /// The error a runQuery element's bad document gives: element index, document path, then the detail.
    static func inDocument(_ detail: String) -> FirestoreError {
        FirestoreError(code: .internal, message: "runQuery element 0: document \(root)/c/d: \(detail)")
    }

    static let runQueryRows: [Row] = [
        Row(
            label: "two value members", status: 200,
            body: runQueryBody(
                fields: #"{"tags":{"arrayValue":{"values":[{"stringValue":"a"},"#
                    + #"{"stringValue":"b","integerValue":"1"}]}}}"#),
            expected: inDocument(
                "field tags[1]: a Value has exactly one member, found both integerValue and stringValue")),
        Row(
            label: "unknown value type", status: 200,
            body: runQueryBody(fields: #"{"profile":{"mapValue":{"fields":{"first name":{"vectorValue":{}}}}}}"#),
            expected: inDocument("field profile.`first name`: unknown value type (members: vectorValue)")),
        Row(
            label: "integer out of range", status: 200,
            body: runQueryBody(fields: #"{"n":{"integerValue":"9223372036854775808"}}"#),
            expected: inDocument(
                #"field n: integerValue must be a decimal 64-bit integer, found "9223372036854775808""#)),
        Row(
            label: "integer out of range as a JSON number", status: 200,
            body: runQueryBody(fields: #"{"n":{"integerValue":9223372036854775808}}"#),
            expected: inDocument(
                "field n: integerValue must be a 64-bit integer (a decimal string, or a JSON number "
                    + "below 2^53), found 9.223372036854776e+18")),
        Row(
            label: "invalid timestamp value", status: 200,
            body: runQueryBody(fields: #"{"t":{"timestampValue":"2023-02-30T00:00:00Z"}}"#),
            expected: inDocument(
                #"field t: invalid RFC 3339 timestamp "2023-02-30T00:00:00Z" at byte 5: no such date"#)),
        Row(
            label: "invalid updateTime", status: 200,
            body: runQueryBody(fields: "{}", times: #""updateTime":"2024-05-01 11:00:00Z""#),
            expected: inDocument(
                #"updateTime: invalid RFC 3339 timestamp "2024-05-01 11:00:00Z" at byte 10: expected 'T' or 't'"#)),
        Row(
            label: "invalid base64", status: 200,
            body: runQueryBody(fields: #"{"b":{"bytesValue":"AB$C"}}"#),
            expected: inDocument(#"field b: bytesValue must be base64, found "AB$C""#)),
        Row(
            label: "invalid readTime", status: 200,
            body: #"[{"readTime":"2024-13-01T00:00:00Z"}]"#,
            expected: FirestoreError(
                code: .internal,
                message:
                    #"element 0 readTime: invalid RFC 3339 timestamp "2024-13-01T00:00:00Z" at byte 5: no such date"#)),
        Row(
            label: "non-array runQuery body", status: 200,
            body: #"{"document":{"name":"\#(root)/c/d"},"readTime":"\#(readTime)"}"#,
            expected: FirestoreError(code: .internal, message: "runQuery response is an object, not an array")),
        Row(
            label: "element that is not an object", status: 200,
            body: #"[{"readTime":"\#(readTime)"},"done"]"#,
            expected: FirestoreError(code: .internal, message: "runQuery element 1 is a string, not an object")),
        Row(
            label: "HTML error page with 502", status: 502,
            body: "<html><head><title>502 Bad Gateway</title></head></html>",
            expected: FirestoreError(
                code: .internal, message: "<html><head><title>502 Bad Gateway</title></head></html>", httpStatus: 502)),
        Row(
            label: "HTML page with 200", status: 200,
            body: "<html><body>Bad gateway</body></html>",
            expected: FirestoreError(
                code: .internal, message: "runQuery response is not JSON: invalid JSON at byte 0: unexpected character")
        ),
        Row(
            label: "truncated body with 200", status: 200,
            body: #"[{"document":{"name":"proj"#,
            expected: FirestoreError(
                code: .internal, message: "runQuery response is not JSON: invalid JSON at byte 21: unterminated string")
        ),
        Row(
            label: "empty body with 200", status: 200, body: "",
            expected: FirestoreError(code: .internal, message: "runQuery response body is empty")),
    ]

    /// A client on `transport` that does not retry (the default policy would send a read five times over a
    /// broken response; the error is the same).
    static func client(_ transport: ScriptedTransport) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false, retryPolicy: .none)
    }

    @Test(arguments: runQueryRows)
    func runQueryResponse(row: Row) async throws {
        let transport = ScriptedTransport { _, _ in HTTPResponse(status: row.status, body: Data(row.body.utf8)) }
        let db = try Self.client(transport)
        await #expect(throws: row.expected) { _ = try await db.collection("c").getDocuments() }
        #expect(transport.calls == ["POST :runQuery"])
    }

    @Test func batchGetFoundDocumentWithABadValue() async throws {
        let body =
            #"[{"found":{"name":"\#(Self.root)/c/d","fields":{"m":{"mapValue":{"fields":{"#
            + #""x.y":{"geoPointValue":{"latitude":"north"}}}}}}},"readTime":"\#(Self.readTime)"}]"#
        let transport = ScriptedTransport { _, _ in HTTPResponse(status: 200, body: Data(body.utf8)) }
        let db = try Self.client(transport)
        await #expect(
            throws: FirestoreError(
                code: .internal,
                message: "batchGet element 0: document \(Self.root)/c/d: "
                    + #"field m.`x.y`: geoPointValue must be numbers, found {"latitude":"north"}"#)
        ) {
            _ = try await db.batchGet(names: ["\(Self.root)/c/d"])
        }
    }

    @Test func batchGetEmptyBodyWith200() async throws {
        let transport = ScriptedTransport { _, _ in HTTPResponse(status: 200) }
        let db = try Self.client(transport)
        await #expect(throws: FirestoreError(code: .internal, message: "batchGet response body is empty")) {
            _ = try await db.batchGet(names: ["\(Self.root)/c/d"])
        }
    }

    /// A document ID with `/` would silently address another document (`c/a/b` is a collection path): it is
    /// refused before anything is sent.
    @Test func documentIDWithASlash() async throws {
        let transport = ScriptedTransport { _, _ in .ok(["name": "unused"]) }
        let db = try transport.firestore()
        let expected = FirestoreError.invalidArgument(#"invalid ID "a/b": an ID cannot contain "/""#)
        await #expect(throws: expected) { _ = try await db.collection("c").document("a/b").getDocument() }
        await #expect(throws: expected) { try await db.collection("c").document("a/b").setData(["n": 1]) }
        #expect(transport.calls == [])
    }

    /// A document ID with a NUL, which Firestore refuses, is refused before anything is sent, through every way
    /// of naming the document, with the NUL written out.
    @Test func documentIDWithANul() async throws {
        let transport = ScriptedTransport { _, _ in .ok(["name": "unused"]) }
        let db = try transport.firestore()
        let expected = FirestoreError.invalidArgument(
            #"invalid ID "a\u{0}b" at position 1 of path "c/a\u{0}b": an ID cannot contain NUL (U+0000)"#)
        await #expect(throws: expected) { _ = try await db.collection("c").document("a\u{0}b").getDocument() }
        await #expect(throws: expected) { try await db.document("c/a\u{0}b").setData(["n": 1]) }
        await #expect(throws: expected) {
            let batch = db.batch()
            try batch.setData(["n": 1], forDocument: db.collection("c").document("a\u{0}b"))
            _ = try await batch.commit()
        }
        #expect(transport.calls == [])
    }
}
