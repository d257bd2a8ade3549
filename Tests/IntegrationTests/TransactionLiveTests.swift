import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// `runTransaction` against the real emulator: rollback, reads before writes (contention: LoadTests'
/// `TransactionContentionLiveTests`).
@Suite(.timeLimit(.minutes(5))) struct TransactionLiveTests {
    struct Refused: Error {}

    @Test(arguments: LiveFirestore.protocols) func throwingClosureLeavesDataUnchanged(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("rollback", wire)
        let reference = db.document("docs/d")
        try await reference.setData(["v": 1])
        await #expect(throws: Refused.self) {
            try await db.runTransaction { transaction in
                _ = try await transaction.getDocument(reference)
                try transaction.setData(["v": 2], forDocument: reference)
                try transaction.create(["v": 3], forDocument: db.document("docs/new"))
                throw Refused()
            }
        }
        #expect(try await reference.getDocument().data() == ["v": 1])
        #expect(try await db.document("docs/new").getDocument().exists == false)
        // The rollback released the read lock: a plain write goes through. (While the lock is held the emulator
        // fails the write with ABORTED "Transaction lock timeout." after about 2 s, which would throw here; no
        // wall-clock bound, which a loaded machine or a sanitizer run would break.)
        try await reference.updateData(["v": 4])
        #expect(try await reference.getDocument().data() == ["v": 4])
    }

    @Test(arguments: LiveFirestore.protocols) func readsThenWritesCommitTogether(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("txwrites", wire)
        let from = db.document("accounts/a")
        let to = db.document("accounts/b")
        try await from.setData(["balance": 100])
        let moved = try await db.runTransaction { transaction -> Int64 in
            let snapshots = try await transaction.getDocuments([from, to])
            guard case .integer(let balance)? = snapshots[0].get("balance"), !snapshots[1].exists else { return 0 }
            try transaction.updateData(["balance": .increment(Int64(-30))], forDocument: from)
                .create(["balance": 30, "opened": .serverTimestamp()], forDocument: to)
            return balance
        }
        #expect(moved == 100)
        #expect(try await from.getDocument().data() == ["balance": 70])
        #expect(try await to.getDocument().get("balance") == 30)
    }

    @Test(arguments: LiveFirestore.protocols) func readAfterWriteThrowsAndWritesNothing(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("readafter", wire)
        let reference = db.document("docs/d")
        let error = await #expect(throws: FirestoreError.self) {
            try await db.runTransaction { transaction in
                try transaction.setData(["v": 1], forDocument: reference)
                _ = try await transaction.getDocument(reference)
            }
        }
        #expect(error?.code == .invalidArgument)
        #expect(try await reference.getDocument().exists == false)
    }
}
