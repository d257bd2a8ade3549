import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// What every write returns on the real emulator (the Node SDK's `WriteResult`): the `updateTime` the document
/// then has, and the value each field transform produced, in order.
@Suite(.timeLimit(.minutes(2))) struct WriteResultLiveTests {
    /// increment, maximum and minimum give the field's new value; serverTimestamp the time it stored (millisecond
    /// precision; on the emulator not the commit time but the request's arrival, so earlier than `updateTime`);
    /// arrayUnion and arrayRemove give null. `updateTime` is the document's, read back.
    @Test(arguments: LiveFirestore.protocols) func transformResultsAreTheValuesTheTransformsProduced(
        wire: FirestoreProtocol
    ) async throws {
        let db = try LiveFirestore.make("wrtransforms", wire)
        let reference = db.document("counters/c")
        try await reference.setData(["n": 5, "high": 2.5, "low": 7, "tags": ["a"]])
        let result = try await reference.updateData([
            "n": .increment(Int64(5)), "high": .maximum(1.5), "low": .minimum(Int64(3)), "at": .serverTimestamp(),
            "tags": .arrayUnion(["b"]), "gone": .arrayRemove(["a"]),
        ])
        let stored = try await reference.getDocument()
        #expect(result.updateTime == stored.updateTime)
        #expect(result.writeTime == stored.updateTime)
        guard case .timestamp(let at)? = stored.get("at") else {
            Issue.record("at is \(String(describing: stored.get("at")))")
            return
        }
        #expect(at.nanos % 1_000_000 == 0)
        // updateData's transforms are sent in the order of their field paths (at, gone, high, low, n, tags).
        #expect(result.transformResults == [.timestamp(at), .null, .double(2.5), .integer(3), .integer(10), .null])
        #expect(
            stored.data() == [
                "n": 10, "high": 2.5, "low": 3, "at": .timestamp(at), "tags": ["a", "b"], "gone": .array([]),
            ])
    }

    @Test(arguments: LiveFirestore.protocols) func everyWriteFormReturnsTheDocumentsNewUpdateTime(
        wire: FirestoreProtocol
    ) async throws {
        let db = try LiveFirestore.make("wrforms", wire)
        let reference = db.document("fruits/apple")
        let created = try await reference.create(["name": "Apple"])
        #expect(created.updateTime == (try await reference.getDocument().updateTime))
        #expect(created.transformResults == [])
        let set = try await reference.setData(["name": "Apple", "kcal": 52])
        let merged = try await reference.setData(["color": "red"], merge: true)
        let updated = try await reference.updateData(["kcal": 53])
        let times = [created, set, merged, updated].compactMap(\.updateTime)
        #expect(times.count == 4)
        #expect(times == times.sorted() && Set(times).count == 4)
        #expect(updated.updateTime == (try await reference.getDocument().updateTime))
        // A write that changes nothing keeps the previous updateTime (the REST reference's WriteResult rule).
        let unchanged = try await reference.updateData(["kcal": 53])
        #expect(unchanged.updateTime == updated.updateTime)
        // A delete has no updateTime; its writeTime is the commit time, after the last write.
        let deleted = try await reference.delete()
        #expect(deleted.updateTime == nil)
        #expect(deleted.writeTime > (try #require(updated.updateTime)))
        #expect(try await reference.getDocument().exists == false)
    }

    @Test(arguments: LiveFirestore.protocols) func createOfAnExistingDocumentFailsWithAlreadyExistsAndWritesNothing(
        wire: FirestoreProtocol
    ) async throws {
        let db = try LiveFirestore.make("wrcreate", wire)
        let reference = db.document("fruits/apple")
        let first = try await reference.create(["name": "Apple"])
        let error = await #expect(throws: FirestoreError.self) { try await reference.create(["name": "Other"]) }
        #expect(error?.code == .alreadyExists)
        let stored = try await reference.getDocument()
        #expect(stored.data() == ["name": "Apple"])
        #expect(stored.updateTime == first.updateTime)
    }

    @Test(arguments: LiveFirestore.protocols) func addAndBatchesReturnTheirResults(wire: FirestoreProtocol) async throws
    {
        let db = try LiveFirestore.make("wrbatch", wire)
        let (reference, added) = try await db.collection("fruits").add(["name": "Fig", "n": 1])
        #expect(added.updateTime == (try await reference.getDocument().updateTime))
        let batch = db.batch()
        try batch.updateData(["n": .increment(Int64(41))], forDocument: reference)
            .setData(["name": "Kiwi"], forDocument: db.document("fruits/kiwi"))
            .deleteDocument(db.document("fruits/never"))
        let results = try await batch.commit()
        #expect(results.count == 3)
        #expect(results[0].transformResults == [.integer(42)])
        #expect(results[0].updateTime == results[1].updateTime)
        #expect(results[1].updateTime == (try await db.document("fruits/kiwi").getDocument().updateTime))
        #expect(results[2].updateTime == nil)
        #expect(results[2].writeTime == results[1].updateTime)
        #expect(try await db.batch().commit() == [])
    }

    @Test(arguments: LiveFirestore.protocols) func aTransactionReturnsItsCommitsResults(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("wrtx", wire)
        let counter = db.document("counters/c")
        try await counter.setData(["n": 41])
        let outcome = try await db.runTransactionWithWriteResults { transaction -> Int64 in
            let snapshot = try await transaction.getDocument(counter)
            try transaction.updateData(["n": .increment(Int64(1)), "at": .serverTimestamp()], forDocument: counter)
            guard case .integer(let n)? = snapshot.get("n") else { return -1 }
            return n
        }
        #expect(outcome.value == 41)
        let stored = try await counter.getDocument()
        #expect(outcome.writeResults.map(\.updateTime) == [stored.updateTime])
        #expect(outcome.writeResults.first?.transformResults == [try #require(stored.get("at")), .integer(42)])
    }
}
