import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// ``BulkWriter`` against the real emulator (which implements batchWrite): a thousand writes with the default
/// throttle, writes that fail on their own while the rest of their batch succeeds, and write results.
@Suite(.timeLimit(.minutes(3))) struct BulkWriterLiveTests {
    final class Counter: Sendable {
        let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    /// 1,000 sets through a writer with the default options (the 500/50/5 throttle: the first 500 at once, the rest
    /// at 500 a second): every one succeeds, the success callback hears each, and the collection holds them all.
    @Test(arguments: LiveFirestore.protocols) func aThousandWritesLandAndEachHasItsResult(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("bulk-thousand", wire)
        let writer = try db.bulkWriter()
        let heard = Counter()
        writer.onWriteResult { _, _ in heard.add() }
        var operations: [BulkWriter.Operation] = []
        for index in 0..<1_000 {
            let id = String(format: "d%04d", index)
            operations.append(
                try await writer.setData(
                    ["n": .value(.integer(Int64(index))), "id": .value(.string(id))],
                    forDocument: db.collection("numbers").document(id)))
        }
        try await writer.close()
        #expect(heard.count == 1_000)
        var failures = 0
        for operation in operations {
            if case .failure? = operation.outcome { failures += 1 }
        }
        #expect(failures == 0)
        #expect(try await db.collection("numbers").count.getAggregation().count == 1_000)
        #expect(try await db.document("numbers/d0999").getDocument().data() == ["n": 999, "id": "d0999"])
        let written = try await db.document("numbers/d0123").getDocument()
        #expect(try await operations[123].result.updateTime == written.updateTime)
    }

    /// A create of an existing document and an update of a missing one fail alone, with the emulator's codes and
    /// messages, after one attempt (the default rule retries neither); the other writes of the same request land.
    @Test(arguments: LiveFirestore.protocols) func perWriteFailuresLeaveTheRestOfTheBatch(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("bulk-failures", wire)
        try await db.document("c/existing").setData(["n": 1])
        let writer = try db.bulkWriter()
        let errors = Mutex<[String]>([])
        writer.onWriteError { error in
            errors.withLock { $0.append("\(error.operationType.rawValue) \(error.document.path) \(error.code)") }
            return false
        }
        let before = try await writer.setData(["n": 1], forDocument: db.document("c/a"))
        let create = try await writer.create(["n": 2], forDocument: db.document("c/existing"))
        let update = try await writer.updateData(["n": 3], forDocument: db.document("c/missing"))
        let after = try await writer.setData(["n": 4], forDocument: db.document("c/b"))
        try await writer.close()
        #expect(before.outcome.map { if case .success = $0 { true } else { false } } == true)
        #expect(after.outcome.map { if case .success = $0 { true } else { false } } == true)
        guard case .failure(let exists)? = create.outcome, case .failure(let missing)? = update.outcome else {
            Issue.record("the create and the update should fail")
            return
        }
        #expect(exists.code == .alreadyExists)
        #expect(exists.message.hasPrefix("entity already exists: EntityRef{"))
        #expect(exists.message.hasSuffix("path=/c/existing}"))
        #expect(exists.failedAttempts == 1)
        #expect(exists.operationType == .create)
        #expect(missing.code == .notFound)
        #expect(missing.message.hasPrefix("no entity to update: "))
        #expect(errors.withLock { $0.sorted() } == ["create c/existing already-exists", "update c/missing not-found"])
        #expect(try await db.document("c/existing").getDocument().data() == ["n": 1])
        #expect(try await db.document("c/missing").getDocument().exists == false)
        #expect(try await db.document("c/b").getDocument().data() == ["n": 4])
    }

    /// Results carry transform results and update times; a delete's write time is the epoch (batchWrite sends no
    /// commit time); a precondition on `updateTime` that does not hold fails with `failed-precondition`.
    @Test(arguments: LiveFirestore.protocols) func writeResultsAndPreconditions(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("bulk-results", wire)
        let counter = db.document("c/counter")
        let seeded = try await counter.setData(["n": 41])
        let writer = try db.bulkWriter()
        let increment = try await writer.updateData(["n": .increment(Int64(1))], forDocument: counter)
        let delete = try await writer.deleteDocument(db.document("c/gone"))
        let stale = try await writer.deleteDocument(
            db.document("c/stale"), precondition: .updateTime(try Timestamp(seconds: 978_307_200, nanos: 0)))
        try await writer.close()
        let result = try await increment.result
        #expect(result.transformResults == [.integer(42)])
        #expect(result.updateTime == (try await counter.getDocument().updateTime))
        #expect(result.updateTime.map { $0 > seeded.writeTime } == true)
        #expect(try await delete.result == WriteResult(updateTime: nil, writeTime: try Timestamp(seconds: 0, nanos: 0)))
        guard case .failure(let error)? = stale.outcome else {
            Issue.record("the stale delete should fail")
            return
        }
        #expect(error.code == .failedPrecondition)
    }
}
