import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST

/// A transaction's first read begins it (`newTransaction` in the batchGet or runQuery body, REST reference:
/// `BatchGetDocumentsRequest.new_transaction`, `RunQueryRequest.new_transaction`) and hands back its ID, as the
/// Node SDK's lazily started transactions do: no beginTransaction round trip; reads made meanwhile wait for the ID.
@Suite(.timeLimit(.minutes(2))) struct TransactionBeginTests {
    static let root = "projects/p/databases/(default)/documents"
    static let readWrite: JSONValue = ["readWrite": .object([:])]

    /// A transport whose answers come from `respond`, except that the first request waits until ``release()``.
    final class GatedTransport: HTTPTransport {
        private struct State {
            var requests: [HTTPRequest] = []
            var gate: CheckedContinuation<Void, Never>?
            var released = false
        }
        private let state = Mutex(State())
        private let respond: @Sendable (HTTPRequest, Int) -> HTTPResponse

        init(_ respond: @escaping @Sendable (HTTPRequest, Int) -> HTTPResponse) { self.respond = respond }

        var requests: [HTTPRequest] { state.withLock { $0.requests } }
        var bodies: [JSONValue] { requests.map { (try? JSONValue.parse($0.body ?? Data())) ?? .null } }

        func release() {
            let gate = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.released = true
                defer { state.gate = nil }
                return state.gate
            }
            gate?.resume()
        }

        func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
            let index = state.withLock { state in
                state.requests.append(request)
                return state.requests.count - 1
            }
            if index == 0 {
                await withCheckedContinuation { continuation in
                    let open = state.withLock { state in
                        if !state.released { state.gate = continuation }
                        return state.released
                    }
                    if open { continuation.resume() }
                }
            }
            return respond(request, index)
        }

        func firestore() throws -> Firestore {
            Firestore(
                database: try DatabaseID(projectID: "p"), baseURL: "http://test.invalid/v1/",
                credentials: NoCredentials(), transport: self, isEmulator: false)
        }
    }

    static func batchGetAnswer(_ request: HTTPRequest, id: String) -> HTTPResponse {
        let body = (try? JSONValue.parse(request.body ?? Data())) ?? .null
        var elements: [JSONValue] = body["newTransaction"] == nil ? [] : [["transaction": .string(id)]]
        for name in body["documents"]?.arrayValue ?? [] {
            elements.append(["missing": name, "readTime": "2024-05-01T00:00:00Z"])
        }
        return .ok(.array(elements))
    }

    /// Two reads at once: the first begins the transaction, the second waits for its ID and reads inside it; the
    /// commit uses the same ID. Three requests, one `newTransaction`.
    @Test func aReadMadeWhileTheFirstIsInFlightWaitsForItsID() async throws {
        let transport = GatedTransport { request, _ in
            request.url.hasSuffix(":commit")
                ? .ok(["writeResults": [["updateTime": "2024-05-01T00:00:01Z"]], "commitTime": "2024-05-01T00:00:01Z"])
                : Self.batchGetAnswer(request, id: "VDE=")
        }
        let db = try transport.firestore()
        try await db.runTransaction { transaction in
            async let first = transaction.getDocument(db.document("c/a"))
            let deadline = ContinuousClock.now + .seconds(60)
            while transport.requests.isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            async let second = transaction.getDocument(db.document("c/b"))
            while transaction.waitingReadCount == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(transaction.waitingReadCount == 1)
            #expect(transaction.id == nil)
            transport.release()
            let (a, b) = try await (first, second)
            #expect([a.exists, b.exists] == [false, false])
            #expect(transaction.id == "VDE=")
            try transaction.setData(["n": 1], forDocument: db.document("c/a"))
        }
        #expect(
            transport.bodies == [
                ["documents": [.string("\(Self.root)/c/a")], "newTransaction": Self.readWrite],
                ["documents": [.string("\(Self.root)/c/b")], "transaction": "VDE="],
                [
                    "writes": [
                        ["update": ["name": .string("\(Self.root)/c/a"), "fields": ["n": ["integerValue": "1"]]]]
                    ],
                    "transaction": "VDE=",
                ],
            ])
    }

    /// The beginning read fails: the read that waited gets the same error (as in the Node SDK), the transaction is
    /// still not begun, and the next read begins it.
    @Test func aFailedBeginningReadFailsItsWaitersAndTheNextReadBeginsAgain() async throws {
        let transport = GatedTransport { request, index in
            index == 0 ? .error(503, "UNAVAILABLE", "try later") : Self.batchGetAnswer(request, id: "T2")
        }
        let db = try transport.firestore()
        let transaction = Transaction(firestore: db, mode: .readWrite())
        let first = Task { try await transaction.getDocument(db.document("c/a")) }
        let deadline = ContinuousClock.now + .seconds(60)
        while transport.requests.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let second = Task { try await transaction.getDocument(db.document("c/b")) }
        while transaction.waitingReadCount == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        transport.release()
        let firstError = await #expect(throws: FirestoreError.self) { try await first.value }
        let secondError = await #expect(throws: FirestoreError.self) { try await second.value }
        #expect(firstError?.code == .unavailable)
        #expect(secondError == firstError)
        #expect(transaction.id == nil)
        _ = try await transaction.getDocument(db.document("c/c"))
        #expect(transaction.id == "T2")
        #expect(transport.bodies.map { $0["newTransaction"] } == [Self.readWrite, Self.readWrite])
    }

    @Test func aBeginningReadWithoutATransactionIDIsAnError() async throws {
        let transport = ScriptedTransport { _, _ in .ok([["missing": .string("\(Self.root)/c/a")]]) }
        let db = try transport.firestore()
        let transaction = Transaction(firestore: db, mode: .readWrite())
        let error = await #expect(throws: FirestoreError.self) { try await transaction.getDocument(db.document("c/a")) }
        #expect(
            error
                == FirestoreError(
                    code: .internal, message: "the read that began the transaction returned no transaction ID"))
        #expect(transaction.id == nil)
    }

    /// A query read begins the transaction through runQuery (its ID in the stream's first element); a retry after
    /// an aborted commit names that ID in `retryTransaction`.
    @Test func aQueryReadBeginsTheTransactionAndARetryNamesIt() async throws {
        let transport = ScriptedTransport { request, index in
            if request.url.hasSuffix(":runQuery") {
                return .ok([
                    ["transaction": .string("Q\(index)")],
                    [
                        "document": [
                            "name": .string("\(Self.root)/c/a"), "fields": ["n": ["integerValue": "1"]],
                            "createTime": "2024-01-01T00:00:00Z", "updateTime": "2024-01-01T00:00:00Z",
                        ],
                        "readTime": "2024-05-01T00:00:00Z",
                    ],
                ])
            }
            if index == 1 { return .error(409, "ABORTED", "Transaction lock timeout.") }
            if request.url.hasSuffix(":commit") {
                return .ok([
                    "writeResults": [["updateTime": "2024-05-01T00:00:01Z"]], "commitTime": "2024-05-01T00:00:01Z",
                ])
            }
            return .ok([:])
        }
        let db = try transport.firestore()
        let count = try await db.runTransaction { transaction in
            let snapshot = try await transaction.getDocuments(db.collection("c").whereField("n", isEqualTo: 1))
            try transaction.updateData(["n": 2], forDocument: db.document("c/a"))
            return snapshot.count
        }
        #expect(count == 1)
        #expect(
            transport.calls == [
                "POST :runQuery", "POST :commit", "POST :rollback", "POST :runQuery", "POST :commit",
            ])
        let bodies = transport.bodies
        #expect(bodies[0]["newTransaction"] == Self.readWrite)
        #expect(bodies[1]["transaction"] == "Q0")
        #expect(bodies[2] == ["transaction": "Q0"])
        #expect(bodies[3]["newTransaction"] == ["readWrite": ["retryTransaction": "Q0"]])
        #expect(bodies[4]["transaction"] == "Q3")
    }

    @Test func anAggregationReadBeginsTheTransaction() async throws {
        let transport = ScriptedTransport { request, _ in
            if request.url.hasSuffix(":runAggregationQuery") {
                return .ok([
                    ["transaction": "AGG="],
                    ["result": ["aggregateFields": ["n": ["integerValue": "2"]]], "readTime": "2024-05-01T00:00:00Z"],
                ])
            }
            return .ok([:])
        }
        let db = try transport.firestore()
        let total = try await db.runTransaction { transaction in
            try await transaction.getAggregation(db.collection("c").aggregate([.count(alias: "n")])).count
        }
        #expect(total == 2)
        #expect(transport.calls == ["POST :runAggregationQuery", "POST :commit"])
        #expect(transport.bodies[0]["newTransaction"] == Self.readWrite)
        #expect(transport.bodies[1] == ["writes": [], "transaction": "AGG="])
    }

    @Test func getAllWithAFieldMaskReadsInsideTheTransaction() async throws {
        let transport = ScriptedTransport { request, _ in
            request.url.hasSuffix(":batchGet") ? Self.batchGetAnswer(request, id: "VDE=") : .ok([:])
        }
        let db = try transport.firestore()
        let exists = try await db.runTransaction { transaction in
            try await transaction.getAll([db.document("c/a"), db.document("c/a")], fieldMask: [try fieldPath("n")])
                .map(\.exists)
        }
        #expect(exists == [false, false])
        #expect(
            transport.bodies.first == [
                "documents": [.string("\(Self.root)/c/a")], "mask": ["fieldPaths": ["n"]],
                "newTransaction": Self.readWrite,
            ])
    }

    @Test func aQueryOfAnotherDatabaseIsRefusedBeforeSending() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let other = Firestore(
            database: try DatabaseID(projectID: "other"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false)
        let transaction = Transaction(firestore: try transport.firestore(), mode: .readWrite())
        let error = await #expect(throws: FirestoreError.self) {
            try await transaction.getDocuments(other.collection("c"))
        }
        #expect(error?.code == .invalidArgument)
        #expect(transport.requests.isEmpty)
    }

    @Test func moreThanOneConsistencySelectorIsRefused() async throws {
        let transport = ScriptedTransport { _, _ in .ok([]) }
        let error = await #expect(throws: FirestoreError.self) {
            try await transport.firestore().batchGet(names: ["x"], transaction: "VDE=", newTransaction: .readWrite())
        }
        #expect(error == .invalidArgument("a read takes one of readTime, transaction and newTransaction, not several"))
        #expect(transport.requests.isEmpty)
    }
}
