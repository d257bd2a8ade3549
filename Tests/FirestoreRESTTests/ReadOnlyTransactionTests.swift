import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// Read-only transactions and transactions begun before their first read, request by request (REST reference:
/// `TransactionOptions.ReadOnly`, `projects.databases.documents.beginTransaction`): Node's
/// `runTransaction(fn, {readOnly: true, readTime})` and Python's `transaction(read_only=True)` with `@transactional`.
@Suite(.timeLimit(.minutes(2))) struct ReadOnlyTransactionTests {
    struct Failure: Error, Equatable {}

    /// Answers batchGet with every document missing at 2024-05-01T00:00:00Z (plus the transaction ID when the
    /// body begins one), beginTransaction with `VDE=`, commit with one result, rollback with `{}`.
    static func answer(_ request: HTTPRequest, _ index: Int) -> HTTPResponse {
        let body = (try? JSONValue.parse(request.body ?? Data())) ?? .null
        if request.url.hasSuffix(":beginTransaction") { return .ok(["transaction": "VDE="]) }
        if request.url.hasSuffix(":rollback") { return .ok([:]) }
        if request.url.hasSuffix(":commit") {
            return .ok(["writeResults": [["updateTime": "2024-05-01T00:00:02Z"]], "commitTime": "2024-05-01T00:00:02Z"])
        }
        var elements: [JSONValue] = body["newTransaction"] == nil ? [] : [["transaction": "VDE="]]
        for name in body["documents"]?.arrayValue ?? [] {
            elements.append(["missing": name, "readTime": "2024-05-01T00:00:00Z"])
        }
        return .ok(.array(elements))
    }

    @Test func aReadOnlyTransactionBegunByItsFirstReadNeverCommits() async throws {
        let transport = ScriptedTransport(Self.answer)
        let db = try transport.firestore()
        let readTimes = try await db.runTransaction(options: .readOnly()) { transaction in
            #expect(transaction.isReadOnly)
            let a = try await transaction.getDocument(db.document("c/a"))
            let b = try await transaction.getDocument(db.document("c/b"))
            return [a.readTime, b.readTime]
        }
        #expect(readTimes == [ts(1_714_521_600), ts(1_714_521_600)])
        #expect(transport.calls == ["POST :batchGet", "POST :batchGet"])
        #expect(transport.bodies[0]["newTransaction"] == ["readOnly": [:]])
        #expect(transport.bodies[1]["transaction"] == "VDE=")
        #expect(transport.bodies[1]["newTransaction"] == nil)
    }

    @Test func aReadTimeGoesIntoTheReadOnlyOptions() async throws {
        let transport = ScriptedTransport(Self.answer)
        let db = try transport.firestore()
        _ = try await db.runTransaction(options: .readOnly(readTime: ts(1_714_521_000, 500_000_000))) { transaction in
            try await transaction.getDocument(db.document("c/a"))
        }
        #expect(transport.bodies[0]["newTransaction"] == ["readOnly": ["readTime": "2024-04-30T23:50:00.500Z"]])
    }

    @Test func aWriteInAReadOnlyTransactionThrowsAndNothingIsSent() async throws {
        let transport = ScriptedTransport(Self.answer)
        let db = try transport.firestore()
        await #expect(
            throws: FirestoreError(code: .invalidArgument, message: "a read-only transaction cannot write (c/a)")
        ) {
            try await db.runTransaction(options: .readOnly()) { transaction in
                try transaction.setData(["n": 1], forDocument: db.document("c/a"))
            }
        }
        #expect(transport.calls == [])
    }

    /// A read-only transaction makes one attempt: an aborted read is not retried, and (as the Node SDK) one begun by
    /// its first read is not rolled back.
    @Test func aReadOnlyTransactionIsNeverRetried() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 409, body: #"{"error":{"code":409,"message":"contention","status":"ABORTED"}}"#)
        ])
        let db = try transport.firestore()
        await #expect(throws: FirestoreError(code: .aborted, message: "contention", httpStatus: 409)) {
            try await db.runTransaction(options: .readOnly()) { transaction in
                try await transaction.getDocument(db.document("c/a"))
            }
        }
        #expect(transport.calls == ["POST :batchGet"])
    }

    /// Python's `@transactional`: beginTransaction before the closure, reads inside the ID, a rollback when the
    /// closure throws.
    @Test func begunBeforeItsFirstReadAndRolledBackOnError() async throws {
        let transport = ScriptedTransport(Self.answer)
        let db = try transport.firestore()
        await #expect(throws: Failure()) {
            try await db.runTransaction(options: .readOnly(begin: .beforeFirstRead)) { transaction in
                #expect(transaction.id == "VDE=")
                _ = try await transaction.getDocument(db.document("c/a"))
                throw Failure()
            }
        }
        #expect(transport.calls == ["POST :beginTransaction", "POST :batchGet", "POST :rollback"])
        #expect(transport.bodies[0] == ["options": ["readOnly": [:]]])
        #expect(transport.bodies[1]["transaction"] == "VDE=")
        #expect(transport.bodies[2] == ["transaction": "VDE="])
    }

    /// Read-write, begun before the first read: an aborted commit is rolled back and the next attempt begins with
    /// `retryTransaction` naming it, after one back-off pause.
    @Test func aReadWriteTransactionBegunFirstRetriesWithItsID() async throws {
        let transport = ScriptedTransport { request, index in
            if index == 2 {
                return HTTPResponse(
                    status: 409, body: Data(#"{"error":{"code":409,"message":"lost","status":"ABORTED"}}"#.utf8))
            }
            return Self.answer(request, index)
        }
        let clock = CountingClock()
        let db = try transport.firestore(clock: clock)
        let value = try await db.runTransaction(options: .readWrite(maxAttempts: 2, begin: .beforeFirstRead)) {
            transaction in
            _ = try await transaction.getDocument(db.document("c/a"))
            try transaction.setData(["n": 2], forDocument: db.document("c/a"))
            return "done"
        }
        #expect(value == "done")
        #expect(
            transport.calls == [
                "POST :beginTransaction", "POST :batchGet", "POST :commit", "POST :rollback",
                "POST :beginTransaction", "POST :batchGet", "POST :commit",
            ])
        #expect(transport.bodies[0] == ["options": ["readWrite": [:]]])
        #expect(transport.bodies[4] == ["options": ["readWrite": ["retryTransaction": "VDE="]]])
        #expect(clock.sleepCount == 1)
    }

    @Test func maxAttemptsBelowOneIsRefused() async throws {
        let transport = ScriptedTransport(Self.answer)
        let db = try transport.firestore()
        await #expect(
            throws: FirestoreError(code: .invalidArgument, message: "runTransaction needs maxAttempts >= 1, not 0")
        ) {
            try await db.runTransaction(options: .readWrite(maxAttempts: 0)) { _ in }
        }
        #expect(transport.calls == [])
    }
}
