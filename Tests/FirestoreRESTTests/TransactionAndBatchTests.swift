import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST

/// The request sequences of ``WriteBatch``, ``Firestore/runTransaction(maxAttempts:isolation:_:)`` and
/// `listCollectionIds`, on a scripted transport.
@Suite(.timeLimit(.minutes(2))) struct WriteBatchTests {
    @Test func commitsAllWritesInOneRequest() async throws {
        let transport = ScriptedTransport { _, _ in
            .ok([
                "writeResults": [["updateTime": "2024-01-01T00:00:02Z"], ["updateTime": "2024-01-01T00:00:02Z"], [:]],
                "commitTime": "2024-01-01T00:00:02Z",
            ])
        }
        let db = try transport.firestore()
        let batch = db.batch()
        try batch.setData(["n": 1], forDocument: db.document("c/a"))
            .updateData(["m.k": .increment(Int64(1))], forDocument: db.document("c/b"))
            .deleteDocument(db.document("c/x"), precondition: .exists(true))
        #expect(batch.count == 3)
        try await batch.commit()
        #expect(transport.calls == ["POST :commit"])
        let expected = try json(
            #"""
            {"writes":[
              {"update":{"name":"projects/p/databases/(default)/documents/c/a","fields":{"n":{"integerValue":"1"}}}},
              {"update":{"name":"projects/p/databases/(default)/documents/c/b","fields":{}},"updateMask":{"fieldPaths":[]},
               "currentDocument":{"exists":true},
               "updateTransforms":[{"fieldPath":"m.k","increment":{"integerValue":"1"}}]},
              {"delete":"projects/p/databases/(default)/documents/c/x","currentDocument":{"exists":true}}]}
            """#)
        #expect(transport.bodies == [expected])
    }

    @Test func emptyBatchCommits() async throws {
        let transport = ScriptedTransport { _, _ in .init(status: 200, body: Data("{}".utf8)) }
        try await transport.firestore().batch().commit()
        #expect(transport.bodies == [["writes": []]])
    }

    @Test func commitsOnce() async throws {
        let transport = ScriptedTransport { _, _ in .init(status: 200, body: Data("{}".utf8)) }
        let db = try transport.firestore()
        let batch = db.batch()
        try await batch.commit()
        let second = await #expect(throws: FirestoreError.self) { try await batch.commit() }
        #expect(second?.code == .failedPrecondition)
        let late = #expect(throws: FirestoreError.self) { try batch.create(["a": 1], forDocument: db.document("c/d")) }
        #expect(late?.code == .failedPrecondition)
        #expect(transport.requests.count == 1)
    }

    @Test func badDataThrowsWhenAddedAndIsNotKept() throws {
        let transport = ScriptedTransport { _, _ in .init(status: 200) }
        let db = try transport.firestore()
        let batch = db.batch()
        #expect(throws: FirestoreError.self) { try batch.setData(["a": .delete()], forDocument: db.document("c/d")) }
        #expect(throws: FirestoreError.self) { try batch.updateData([:], forDocument: db.document("c/d")) }
        #expect(throws: FirestoreError.self) { try batch.deleteDocument(db.document("c")) }
        #expect(batch.count == 0)
    }

    @Test func documentOfAnotherDatabaseIsRefused() throws {
        let transport = ScriptedTransport { _, _ in .init(status: 200) }
        let other = Firestore(
            database: try DatabaseID(projectID: "other"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false)
        let error = #expect(throws: FirestoreError.self) {
            try transport.firestore().batch().deleteDocument(other.document("c/d"))
        }
        #expect(error?.message.contains("belongs to projects/other/databases/(default)") == true)
    }
}

@Suite(.timeLimit(.minutes(2))) struct TransactionTests {
    static let document =
        #"{"name":"projects/p/databases/(default)/documents/c/n","fields":{"v":{"integerValue":"41"}},"createTime":"2024-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:00Z"}"#

    /// The first read begins the transaction (batchGet with `newTransaction`, its ID in the first element), the
    /// commit uses that ID: two requests, no beginTransaction; the closure's result returns.
    @Test func firstReadBeginsTheTransactionAndTheCommitUsesItsID() async throws {
        let transport = ScriptedTransport { request, _ in
            if request.url.hasSuffix(":batchGet") {
                return .init(
                    status: 200,
                    body: Data(
                        "[{\"transaction\":\"VDE=\"},{\"found\":\(Self.document),\"readTime\":\"2024-01-01T00:00:01Z\"}]"
                            .utf8)
                )
            }
            return .ok(["writeResults": [["updateTime": "2024-01-01T00:00:02Z"]]])
        }
        let db = try transport.firestore()
        let counter = db.document("c/n")
        let result = try await db.runTransaction { transaction in
            let snapshot = try await transaction.getDocument(counter)
            guard case .integer(let value)? = snapshot.get("v") else { return Int64(-1) }
            try transaction.updateData(["v": .integer(value + 1)], forDocument: counter)
            return value + 1
        }
        #expect(result == 42)
        #expect(transport.calls == ["POST :batchGet", "POST :commit"])
        #expect(
            transport.bodies.first == [
                "documents": ["projects/p/databases/(default)/documents/c/n"],
                "newTransaction": ["readWrite": .object([:])],
            ])
        #expect(transport.bodies.last?["transaction"] == "VDE=")
        #expect(transport.bodies.last?["writes"]?.arrayValue?.count == 1)
    }

    @Test func missingDocumentReadsAsNotExisting() async throws {
        let transport = ScriptedTransport { request, _ in
            if request.url.hasSuffix(":batchGet") {
                return .ok([
                    ["transaction": "VDE="],
                    ["missing": "projects/p/databases/(default)/documents/c/none", "readTime": "2024-01-01T00:00:01Z"],
                ])
            }
            return .ok([:])
        }
        let db = try transport.firestore()
        let exists = try await db.runTransaction { transaction in
            try await transaction.getDocument(db.document("c/none")).exists
        }
        #expect(exists == false)
        #expect(transport.bodies.last == ["writes": [], "transaction": "VDE="])
    }

    /// An ABORTED commit rolls its transaction back (releasing locks the server may still hold) and runs the
    /// closure again in a new transaction that names the aborted one. Without reads, each attempt begins its
    /// transaction at the commit.
    @Test func abortedCommitRetriesTheClosure() async throws {
        let transport = ScriptedTransport { request, index in
            if request.url.hasSuffix(":beginTransaction") { return .ok(["transaction": .string("T\(index)")]) }
            if index == 1 { return .error(409, "ABORTED", "Transaction lock timeout.") }
            if request.url.hasSuffix(":commit") {
                return .ok([
                    "writeResults": [["updateTime": "2024-01-01T00:00:02Z"]], "commitTime": "2024-01-01T00:00:02Z",
                ])
            }
            return .ok([:])
        }
        let db = try transport.firestore(clock: CountingClock())
        let runs = Counter()
        try await db.runTransaction { transaction in
            runs.increment()
            try transaction.setData(["a": 1], forDocument: db.document("c/d"))
        }
        #expect(runs.value == 2)
        #expect(
            transport.calls == [
                "POST :beginTransaction", "POST :commit", "POST :rollback", "POST :beginTransaction", "POST :commit",
            ])
        #expect(transport.bodies[2] == ["transaction": "T0"])
        #expect(transport.bodies[3] == ["options": ["readWrite": ["retryTransaction": "T0"]]])
        #expect(transport.bodies[4]["transaction"] == "T3")
    }

    @Test func closedTransactionOnTheEmulatorIsRetried() async throws {
        let transport = ScriptedTransport { request, index in
            if request.url.hasSuffix(":beginTransaction") { return .ok(["transaction": .string("T\(index)")]) }
            if index == 1 { return .error(400, "INVALID_ARGUMENT", "Transaction is invalid or closed.") }
            return .ok([:])
        }
        let db = try transport.firestore(clock: CountingClock())
        try await db.runTransaction { _ in }
        #expect(transport.calls.count == 4)
    }

    @Test func givesUpAfterMaxAttempts() async throws {
        let transport = ScriptedTransport { request, index in
            if request.url.hasSuffix(":beginTransaction") { return .ok(["transaction": .string("T\(index)")]) }
            return .error(409, "ABORTED", "Transaction lock timeout.")
        }
        let clock = CountingClock()
        let db = try transport.firestore(clock: clock)
        let error = await #expect(throws: FirestoreError.self) {
            try await db.runTransaction(maxAttempts: 3) { _ in }
        }
        #expect(error?.code == .aborted)
        #expect(transport.calls.filter { $0 == "POST :beginTransaction" }.count == 3)
        // Back-off on the client's retry clock: 1 s and 1.5 s, each ×0.5–1.5.
        let delays = clock.requestedDelays
        #expect(delays.count == 2)
        #expect((Duration.milliseconds(500)...Duration.milliseconds(1500)).contains(delays.first ?? .zero))
        #expect((Duration.milliseconds(750)...Duration.milliseconds(2250)).contains(delays.last ?? .zero))
    }

    /// The commit and rollback that end a transaction go out with high priority (they never wait for a
    /// connection); its reads and a plain commit with normal priority.
    @Test func transactionEndsGoOutWithHighPriority() async throws {
        let transport = ScriptedTransport { request, index in
            if request.url.hasSuffix(":batchGet") {
                return .ok([
                    ["transaction": "VDE="],
                    ["missing": "projects/p/databases/(default)/documents/c/d", "readTime": "2024-01-01T00:00:01Z"],
                ])
            }
            if index == 1 { return .error(409, "ABORTED", "Transaction lock timeout.") }
            if request.url.hasSuffix(":commit") {
                return .ok([
                    "writeResults": [["updateTime": "2024-01-01T00:00:02Z"]], "commitTime": "2024-01-01T00:00:02Z",
                ])
            }
            return .ok([:])
        }
        let db = try transport.firestore(clock: CountingClock())
        try await db.runTransaction { transaction in
            _ = try await transaction.getDocument(db.document("c/d"))
            try transaction.setData(["a": 1], forDocument: db.document("c/d"))
        }
        try await db.document("c/e").setData(["b": 2])
        // The first read begins the transaction (newTransaction), so no beginTransaction request.
        #expect(
            transport.requests.map { "\($0.url.split(separator: ":").last ?? "") \($0.priority)" } == [
                "batchGet normal", "commit high", "rollback high", "batchGet normal", "commit high", "commit normal",
            ])
        #expect(db.transactionLocks.heldCount == 0)
    }

    struct UserError: Error, Equatable {}

    /// The closure's own error rolls back the transaction its read began and is rethrown; nothing is
    /// committed, nothing retried.
    @Test func throwingClosureRollsBack() async throws {
        let transport = ScriptedTransport { request, _ in
            if request.url.hasSuffix(":batchGet") {
                return .ok([["transaction": "VDE="], ["missing": "projects/p/databases/(default)/documents/c/d"]])
            }
            return .ok([:])
        }
        let db = try transport.firestore()
        await #expect(throws: UserError.self) {
            try await db.runTransaction { transaction in
                _ = try await transaction.getDocument(db.document("c/d"))
                try transaction.setData(["a": 1], forDocument: db.document("c/d"))
                throw UserError()
            }
        }
        #expect(transport.calls == ["POST :batchGet", "POST :rollback"])
        #expect(transport.bodies.last == ["transaction": "VDE="])
    }

    /// A closure that throws before reading began no transaction: nothing is sent at all.
    @Test func throwingClosureWithoutReadsSendsNothing() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let db = try transport.firestore()
        await #expect(throws: UserError.self) {
            try await db.runTransaction { transaction in
                try transaction.setData(["a": 1], forDocument: db.document("c/d"))
                throw UserError()
            }
        }
        #expect(transport.calls == [])
    }

    @Test func readAfterWriteIsRefused() async throws {
        let transport = ScriptedTransport { request, _ in
            request.url.hasSuffix(":beginTransaction") ? .ok(["transaction": "VDE="]) : .ok([:])
        }
        let db = try transport.firestore()
        let error = await #expect(throws: FirestoreError.self) {
            try await db.runTransaction { transaction in
                try transaction.deleteDocument(db.document("c/d"))
                _ = try await transaction.getDocument(db.document("c/d"))
            }
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("all its reads before its writes") == true)
        #expect(transport.calls == [])
    }

    @Test func transactionIsUnusableAfterItsClosure() async throws {
        let transport = ScriptedTransport { request, _ in
            request.url.hasSuffix(":beginTransaction") ? .ok(["transaction": "VDE="]) : .ok([:])
        }
        let db = try transport.firestore()
        let leaked = try await db.runTransaction { $0 }
        let error = #expect(throws: FirestoreError.self) { try leaked.deleteDocument(db.document("c/d")) }
        #expect(error?.code == .failedPrecondition)
    }

    @Test func maxAttemptsBelowOneIsRefused() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        await #expect(throws: FirestoreError.self) {
            try await transport.firestore().runTransaction(maxAttempts: 0) { _ in }
        }
        #expect(transport.requests.isEmpty)
    }

    /// The Node.js SDK's transaction back-off: 1 s, ×1.5 per attempt, at most 60 s, jittered ×0.5–1.5.
    @Test func backoffGrowsAndIsCapped() {
        #expect(Firestore.transactionBackoff(afterAttempt: 1, random: 0.5) == .milliseconds(1000))
        #expect(Firestore.transactionBackoff(afterAttempt: 1, random: 0) == .milliseconds(500))
        #expect(Firestore.transactionBackoff(afterAttempt: 2, random: 0.5) == .milliseconds(1500))
        #expect(Firestore.transactionBackoff(afterAttempt: 3, random: 0) == .milliseconds(1125))
        #expect(Firestore.transactionBackoff(afterAttempt: 3, random: 1) == .milliseconds(3375))
        #expect(Firestore.transactionBackoff(afterAttempt: 11, random: 0.5) == .milliseconds(57665))
        #expect(Firestore.transactionBackoff(afterAttempt: 12, random: 0.5) == .milliseconds(60000))
        #expect(Firestore.transactionBackoff(afterAttempt: 30, random: 1) == .milliseconds(90000))
        #expect(Firestore.transactionBackoff(afterAttempt: 0, random: 2) == .milliseconds(1500))
    }

    @Test func retryableErrors() {
        #expect(Firestore.isRetryableTransactionError(FirestoreError(code: .aborted, message: "")))
        #expect(
            Firestore.isRetryableTransactionError(
                FirestoreError(code: .invalidArgument, message: "Transaction is invalid or closed.", httpStatus: 400)))
        #expect(
            !Firestore.isRetryableTransactionError(FirestoreError.invalidArgument("Transaction is invalid or closed.")))
        #expect(!Firestore.isRetryableTransactionError(FirestoreError(code: .notFound, message: "", httpStatus: 404)))
        #expect(!Firestore.isRetryableTransactionError(CancellationError()))
    }

    @Test func readTimeAndTransactionTogetherAreRefused() async throws {
        let transport = ScriptedTransport { _, _ in .ok([]) }
        await #expect(throws: FirestoreError.self) {
            try await transport.firestore().batchGet(names: ["x"], readTime: ts(1), transaction: "VDE=")
        }
        #expect(transport.requests.isEmpty)
    }
}

@Suite(.timeLimit(.minutes(2))) struct ListCollectionIdsTests {
    @Test func followsPageTokensAtTheRootAndBelowADocument() async throws {
        let transport = ScriptedTransport { request, _ in
            let body = (try? JSONValue.parse(request.body ?? Data())) ?? .null
            if body["pageToken"] == nil { return .ok(["collectionIds": ["a", "b"], "nextPageToken": "p2"]) }
            return .ok(["collectionIds": ["c"]])
        }
        let db = try transport.firestore()
        #expect(try await db.listCollectionIds(pageSize: 2) == ["a", "b", "c"])
        #expect(try await db.document("c/a b").listCollectionIds(pageSize: 5000) == ["a", "b", "c"])
        #expect(
            transport.calls == [
                "POST :listCollectionIds", "POST :listCollectionIds",
                "POST /c/a%20b:listCollectionIds", "POST /c/a%20b:listCollectionIds",
            ])
        #expect(
            transport.bodies == [
                ["pageSize": 2], ["pageSize": 2, "pageToken": "p2"], ["pageSize": 1000],
                ["pageSize": 1000, "pageToken": "p2"],
            ])
    }

    @Test func emptyResponseIsNoCollections() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        #expect(try await transport.firestore().listCollectionIds() == [])
    }

    @Test func repeatedPageTokenIsAnError() async throws {
        let transport = ScriptedTransport { _, _ in .ok(["collectionIds": ["a"], "nextPageToken": "same"]) }
        let error = await #expect(throws: FirestoreError.self) { try await transport.firestore().listCollectionIds() }
        #expect(error?.code == .internal)
    }
}

/// A thread-safe counter for closures that may run more than once.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
