import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// Transactions begun by their first read on the real emulator: batchGet, runQuery and runAggregationQuery with
/// `newTransaction` hand back the transaction ID (the emulator sends it as a stream element of its own), so a
/// read-then-write transaction is two requests, not three; reads inside it see and lock what they read.
@Suite(.timeLimit(.minutes(2))) struct TransactionBeginLiveTests {
    /// A curl transport that notes the verb of every request (`:batchGet`, `:commit`, `GET`).
    final class VerbLog: HTTPTransport {
        private let base = CurlTransport()
        private let verbs = Mutex<[String]>([])
        var all: [String] { verbs.withLock { $0 } }
        func clear() { verbs.withLock { $0 = [] } }

        func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
            let path = request.url.split(separator: "?").first ?? Substring(request.url)
            let last = path.split(separator: "/").last ?? ""
            let verb = last.contains(":") ? ":" + (last.split(separator: ":").last ?? "") : request.method
            verbs.withLock { $0.append(verb) }
            return try await base.send(request)
        }
    }

    static func client(_ label: String) throws -> (Firestore, VerbLog) {
        let log = VerbLog()
        let db = try Firestore.emulator(
            host: EmulatorEnvironment.requireHost(), projectID: EmulatorEnvironment.uniqueProjectID(label),
            transport: log)
        return (db, log)
    }

    @Test func aReadThenWriteTransactionIsTwoRequests() async throws {
        let (db, log) = try Self.client("txbegin")
        let counter = db.document("counters/c")
        try await counter.setData(["n": 1])
        log.clear()
        let outcome = try await db.runTransactionWithWriteResults { transaction -> String? in
            let snapshot = try await transaction.getDocument(counter)
            guard case .integer(let n)? = snapshot.get("n") else { return nil }
            try transaction.updateData(["n": .integer(n + 1)], forDocument: counter)
            return transaction.id
        }
        #expect(log.all == [":batchGet", ":commit"])
        #expect(outcome.value?.isEmpty == false)
        #expect(try await counter.getDocument().data() == ["n": 2])
    }

    @Test func aQueryAndAnAggregationInsideATransaction() async throws {
        let (db, log) = try Self.client("txquery")
        let fruits = db.collection("fruits")
        try await fruits.document("apple").setData(["kcal": 52, "ripe": true])
        try await fruits.document("fig").setData(["kcal": 74, "ripe": false])
        log.clear()
        let (names, count) = try await db.runTransaction { transaction in
            let ripe = try await transaction.getDocuments(fruits.whereField("ripe", isEqualTo: true))
            let total = try await transaction.getAggregation(fruits.aggregate([.sum("kcal", alias: "kcal")]))
            for document in ripe.documents {
                try transaction.updateData(["checked": true], forDocument: document.reference)
            }
            return (ripe.documents.map(\.documentID), total.get("kcal"))
        }
        #expect(names == ["apple"])
        #expect(count == .integer(126))
        #expect(log.all == [":runQuery", ":runAggregationQuery", ":commit"])
        #expect(try await fruits.document("apple").getDocument().data() == ["kcal": 52, "ripe": true, "checked": true])
    }

    @Test func aTransactionWithoutReadsBeginsAtItsCommit() async throws {
        let (db, log) = try Self.client("txnoreads")
        try await db.runTransaction { transaction in
            _ = try transaction.setData(["n": 1], forDocument: db.document("docs/a"))
        }
        #expect(log.all == [":beginTransaction", ":commit"])
        #expect(try await db.document("docs/a").getDocument().data() == ["n": 1])
    }

    /// Two transactions that read and write the same document at once: the emulator aborts one ("Transaction
    /// lock timeout."), it is retried in a new transaction begun by its read, and both increments land.
    @Test(.timeLimit(.minutes(3))) func contendingTransactionsBegunByTheirReadsLoseNoIncrement() async throws {
        let (db, _) = try Self.client("txcontend")
        let counter = db.document("counters/c")
        try await counter.setData(["n": 0])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<5 {
                        try await db.runTransaction { transaction in
                            let snapshot = try await transaction.getDocument(counter)
                            guard case .integer(let n)? = snapshot.get("n") else { return }
                            try transaction.updateData(["n": .integer(n + 1)], forDocument: counter)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await counter.getDocument().data() == ["n": 10])
    }
}
