import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// `Query.stream()` request by request: a stream that fails mid-way resumes after the last document it decoded, at
/// the first response's read time, with the limit reduced and the offset dropped, so no document comes twice
/// (nodejs-firestore #1790, #2200).
@Suite(.timeLimit(.minutes(2))) struct QueryStreamTests {
    static let root = "projects/p/databases/(default)/documents"

    static func row(_ id: String, n: Int, readTime: String = "2024-05-01T00:00:05Z") -> String {
        #"{"document":{"name":"\#(root)/c/\#(id)","fields":{"n":{"integerValue":"\#(n)"}},"#
            + #""createTime":"2024-05-01T00:00:00Z","updateTime":"2024-05-01T00:00:00Z"},"readTime":"\#(readTime)"}"#
    }

    static let unavailable =
        #"{"error":{"code":503,"message":"The datastore operation timed out","status":"UNAVAILABLE"}}"#

    @Test func aFailureMidWayResumesAfterTheLastDocumentWithoutDuplicates() async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: "[\(Self.row("a", n: 1)),\(Self.row("b", n: 2)),\(Self.unavailable)]"),
            .response(
                status: 200,
                body: "[\(Self.row("c", n: 3, readTime: "2024-05-01T00:00:06Z")),"
                    + #"{"readTime":"2024-05-01T00:00:06Z","done":true}]"#),
        ])
        let db = try transport.firestore(clock: CountingClock())
        var ids: [String] = []
        for try await document in db.collection("c").order(by: "n").offset(1).limit(to: 5).stream() {
            ids.append(document.documentID)
        }
        #expect(ids == ["a", "b", "c"])
        #expect(transport.calls == ["POST :runQuery", "POST :runQuery"])
        #expect(
            transport.bodies[0]
                == (try json(
                    #"{"structuredQuery":{"from":[{"collectionId":"c"}],"orderBy":[{"field":{"fieldPath":"n"},"#
                        + #""direction":"ASCENDING"}],"offset":1,"limit":5}}"#)))
        #expect(
            transport.bodies[1]
                == (try json(
                    #"{"structuredQuery":{"from":[{"collectionId":"c"}],"orderBy":[{"field":{"fieldPath":"n"},"#
                        + #""direction":"ASCENDING"},{"field":{"fieldPath":"__name__"},"direction":"ASCENDING"}],"#
                        + #""startAt":{"values":[{"integerValue":"2"},{"referenceValue":"\#(Self.root)/c/b"}]},"#
                        + #""limit":3},"readTime":"2024-05-01T00:00:05Z"}"#)))
    }

    @Test func aFailureBeforeAnyDocumentStartsAgainWithoutACursor() async throws {
        let transport = ScriptedTransport([
            .failure(FirestoreError(code: .unavailable, message: "connection reset")),
            .response(status: 200, body: "[\(Self.row("a", n: 1))]"),
        ])
        let db = try transport.firestore(clock: CountingClock())
        var ids: [String] = []
        for try await document in db.collection("c").stream() { ids.append(document.documentID) }
        #expect(ids == ["a"])
        #expect(transport.bodies[1] == ["structuredQuery": ["from": [["collectionId": "c"]]]])
    }

    @Test func aLimitAlreadyReachedEndsWithoutAnotherRequest() async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: "[\(Self.row("a", n: 1)),\(Self.row("b", n: 2)),\(Self.unavailable)]")
        ])
        let db = try transport.firestore(clock: CountingClock())
        var ids: [String] = []
        for try await document in db.collection("c").limit(to: 2).stream() { ids.append(document.documentID) }
        #expect(ids == ["a", "b"])
        #expect(transport.calls == ["POST :runQuery"])
    }

    @Test func aPermanentErrorEndsTheStreamAfterWhatCameBefore() async throws {
        let denied = #"{"error":{"code":403,"message":"no","status":"PERMISSION_DENIED"}}"#
        let transport = ScriptedTransport([.response(status: 200, body: "[\(Self.row("a", n: 1)),\(denied)]")])
        let db = try transport.firestore(clock: CountingClock())
        var ids: [String] = []
        await #expect(throws: FirestoreError(code: .permissionDenied, message: "no", httpStatus: 200)) {
            for try await document in db.collection("c").stream() { ids.append(document.documentID) }
        }
        #expect(ids == ["a"])
    }

    @Test func limitToLastCannotBeStreamed() async throws {
        let transport = ScriptedTransport([])
        let db = try transport.firestore()
        await #expect(
            throws: FirestoreError(
                code: .invalidArgument,
                message: "Query results for queries that include limitToLast() constraints cannot be streamed. "
                    + "Use Query.get() instead.")
        ) {
            for try await _ in db.collection("c").order(by: "n").limit(toLast: 2).stream() {}
        }
        #expect(transport.calls == [])
    }

    /// A malformed answer is retried like any `internal` failure of a read (as every other read's decoding), then
    /// thrown.
    @Test func aResponseWithoutAReadTimeIsAnError() async throws {
        let transport = ScriptedTransport { _, _ in HTTPResponse(status: 200, body: Data("[]".utf8)) }
        let db = try transport.firestore(clock: CountingClock())
        await #expect(throws: FirestoreError(code: .internal, message: "runQuery response carries no readTime")) {
            for try await _ in db.collection("c").stream() {}
        }
        #expect(transport.calls.count == 5)
    }
}
