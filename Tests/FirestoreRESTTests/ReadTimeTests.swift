import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The times the server gives: each document snapshot's `readTime` (Node `DocumentSnapshot.readTime`), the commit
/// time of a batch and of a transaction (REST `CommitResponse.commit_time`, Python `WriteBatch.commit_time`) and an
/// offset query's `skippedResults`.
@Suite(.timeLimit(.minutes(2))) struct ReadTimeTests {
    static let root = "projects/p/databases/(default)/documents"

    @Test func getAllSnapshotsCarryTheBatchGetReadTime() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body: """
                    [{"found":{"name":"\(Self.root)/c/a","fields":{},"createTime":"2024-05-01T00:00:00Z",\
                    "updateTime":"2024-05-01T00:00:00Z"},"readTime":"2024-05-01T00:00:09.25Z"},
                    {"missing":"\(Self.root)/c/b","readTime":"2024-05-01T00:00:09.25Z"}]
                    """)
        ])
        let db = try transport.firestore()
        let snapshots = try await db.getAll([db.document("c/a"), db.document("c/b")])
        #expect(snapshots.map(\.readTime) == [ts(1_714_521_609, 250_000_000), ts(1_714_521_609, 250_000_000)])
        #expect(snapshots.map(\.exists) == [true, false])
    }

    @Test func queryDocumentsCarryTheReadTimeAndTheSnapshotTheSkippedCount() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body: """
                    [{"readTime":"2024-05-01T00:00:05Z","skippedResults":2},
                    {"document":{"name":"\(Self.root)/c/d3","fields":{}},"readTime":"2024-05-01T00:00:05Z"}]
                    """)
        ])
        let db = try transport.firestore()
        let snapshot = try await db.collection("c").offset(2).getDocuments()
        #expect(snapshot.skippedResults == 2)
        #expect(snapshot.readTime == ts(1_714_521_605))
        #expect(snapshot.documents.map(\.readTime) == [ts(1_714_521_605)])
        #expect(transport.bodies[0]["structuredQuery"]?["offset"] == 2)
    }

    @Test func aBatchKnowsItsCommitTimeAfterCommitting() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body:
                    #"{"writeResults":[{"updateTime":"2024-05-01T00:00:01Z"},{}],"commitTime":"2024-05-01T00:00:02Z"}"#)
        ])
        let db = try transport.firestore()
        let batch = db.batch()
        try batch.setData(["n": 1], forDocument: db.document("c/a"))
        try batch.deleteDocument(db.document("c/b"))
        #expect(batch.commitTime == nil)
        let results = try await batch.commit()
        #expect(results.map(\.writeTime) == [ts(1_714_521_601), ts(1_714_521_602)])
        #expect(batch.commitTime == ts(1_714_521_602))
    }

    @Test func aTransactionResultCarriesTheCommitTime() async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: #"{"transaction":"VDE="}"#),
            .response(
                status: 200,
                body: #"{"writeResults":[{"updateTime":"2024-05-01T00:00:01Z"}],"commitTime":"2024-05-01T00:00:03Z"}"#),
        ])
        let db = try transport.firestore()
        let outcome = try await db.runTransactionWithWriteResults { transaction in
            try transaction.setData(["n": 1], forDocument: db.document("c/a"))
        }
        #expect(outcome.commitTime == ts(1_714_521_603))
        #expect(outcome.writeResults.map(\.writeTime) == [ts(1_714_521_601)])
    }

    @Test func equalityIgnoresTheReadTime() throws {
        let db = try ScriptedTransport([]).firestore()
        let document = Document(name: "\(Self.root)/c/a", fields: ["n": .integer(1)])
        let early = DocumentSnapshot(firestore: db, document: document, readTime: ts(1))
        let late = DocumentSnapshot(firestore: db, document: document, readTime: ts(2))
        #expect(early == late)
        #expect(Set([early, late]).count == 1)
        #expect(early.readTime == ts(1))
    }
}
