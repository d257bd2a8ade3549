import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `query.mirror(into:)` at its start, before anything is sent: a sink holding the resume point of another query is
/// refused (its resume token is another target's, its documents another result), naming both queries.
@Suite(.timeLimit(.minutes(1))) struct MirrorStartTests {
    typealias F = MirrorFixture

    @Test func aSinkHoldingAnotherQuerysResumePointIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        let db = try Firestore.offline()
        let held = "projects/p/databases/(default)/documents {\"from\":[{\"collectionId\":\"fruits\"}]}"
        try await mirror.apply(
            FeedSinkBatch(changes: [F.put("a", updated: 1)], readTime: F.time(2), resumeToken: [1], query: held))
        let error = await #expect(throws: FirestoreError.self) {
            try await db.collection("vegetables").mirror(into: mirror)
        }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "mirror of projects/p/databases/(default)/documents {\"from\":[{\"collectionId\":"
                + "\"vegetables\"}]}: the sink holds the resume point of another query (\(held)); mirror this query "
                + "into another table, or empty that one")
        #expect(F.counts(mirror) == [1, 1, 0, 0])
    }
}
