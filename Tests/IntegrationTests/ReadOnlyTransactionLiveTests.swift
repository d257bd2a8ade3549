import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Read-only transactions and read times on the real emulator: every read of a read-only transaction sees one
/// point in time while writes go on (and are not held up by it), a `readTime` reads the past, and the commit
/// time and the emulator's missing skipped count are as the server sends them.
@Suite(.timeLimit(.minutes(2))) struct ReadOnlyTransactionLiveTests {
    /// Moves one unit from `a` to `b` (or back) in a batch, over and over, so that a consistent read always sees
    /// `a + b == 100`; counts the batches committed.
    static func transfer(_ db: Firestore, rounds: Int) async throws -> Int {
        for round in 0..<rounds {
            let batch = db.batch()
            try batch.setData(["n": .integer(Int64(100 - round))], forDocument: db.document("accounts/a"))
            try batch.setData(["n": .integer(Int64(round))], forDocument: db.document("accounts/b"))
            try await batch.commit()
        }
        return rounds
    }

    static func number(_ snapshot: DocumentSnapshot) -> Int64? {
        if case .integer(let n)? = snapshot.get("n") { n } else { nil }
    }

    @Test(arguments: [TransactionOptions.Begin.withFirstRead, .beforeFirstRead])
    func everyReadSeesOnePointInTimeWhileWritesGoOn(begin: TransactionOptions.Begin) async throws {
        let db = try LiveFirestore.make("readonly")
        _ = try await Self.transfer(db, rounds: 1)
        let writer = Task { try await Self.transfer(db, rounds: 40) }
        var seen: [(Int64?, Int64?, Timestamp?, Timestamp?)] = []
        for _ in 0..<5 {
            let pair = try await db.runTransaction(options: .readOnly(begin: begin)) { transaction in
                let a = try await transaction.getDocument(db.document("accounts/a"))
                try await Task.sleep(for: .milliseconds(60))  // the writer commits meanwhile
                let b = try await transaction.getDocuments(db.collection("accounts").whereField("n", isLessThan: 200))
                return (a, b.documents.first { $0.documentID == "b" })
            }
            seen.append((Self.number(pair.0), pair.1.map(Self.number) ?? nil, pair.0.readTime, pair.1?.readTime))
        }
        let committed = try await writer.value
        #expect(committed == 40)  // a read-only transaction holds no lock: the writer never waited for it
        for (a, b, readTimeA, readTimeB) in seen {
            #expect(a.map { $0 + (b ?? -1000) } == 100)
            #expect(readTimeA != nil && readTimeA == readTimeB)
        }
    }

    @Test(arguments: LiveFirestore.protocols) func aReadTimeReadsThePast(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("readonlypast", wire)
        let account = db.document("accounts/a")
        let first = try await account.setData(["n": 1])
        try await account.setData(["n": 2])
        let past = try await db.runTransaction(options: .readOnly(readTime: first.writeTime)) { transaction in
            try await transaction.getDocument(account)
        }
        #expect(past.data() == ["n": 1])
        #expect(past.readTime == first.writeTime)
        let now = try await db.runTransaction(options: .readOnly(readTime: first.writeTime, begin: .beforeFirstRead)) {
            transaction in try await transaction.getDocument(account)
        }
        #expect(now.data() == ["n": 1])
    }

    @Test(arguments: LiveFirestore.protocols) func aWriteIsRefusedAndNothingIsWritten(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("readonlywrite", wire)
        await #expect(
            throws: FirestoreError(code: .invalidArgument, message: "a read-only transaction cannot write (c/a)")
        ) {
            try await db.runTransaction(options: .readOnly()) { transaction in
                _ = try await transaction.getDocument(db.document("c/a"))
                try transaction.setData(["n": 1], forDocument: db.document("c/a"))
            }
        }
        #expect(try await db.document("c/a").getDocument().exists == false)
    }

    @Test(arguments: LiveFirestore.protocols) func commitTimesAndSkippedResults(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("readtimes", wire)
        let batch = db.batch()
        for id in ["a", "b", "c", "d"] {
            try batch.setData(["n": 1], forDocument: db.collection("c").document(id))
        }
        try batch.deleteDocument(db.document("c/gone"))
        let results = try await batch.commit()
        #expect(batch.commitTime != nil)
        #expect(results.last?.writeTime == batch.commitTime)  // a delete's write time is the commit time

        let snapshot = try await db.collection("c").order(by: "n").offset(3).getDocuments()
        #expect(snapshot.documents.map(\.documentID) == ["d"])
        // The emulator applies the offset but sends no `skippedResults` element (checked with curl too):
        // production's count is decoded by ReadTimeTests.
        #expect(snapshot.skippedResults == 0)
        #expect(snapshot.documents.first?.readTime == snapshot.readTime)

        let outcome = try await db.runTransactionWithWriteResults { transaction in
            _ = try await transaction.getDocument(db.document("c/a"))
            try transaction.updateData(["n": 2], forDocument: db.document("c/a"))
        }
        #expect(outcome.commitTime == outcome.writeResults.first?.writeTime)
    }
}
