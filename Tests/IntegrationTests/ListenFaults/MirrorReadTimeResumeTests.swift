import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A mirror whose sink holds a resume point with a read time and no resume token (a backfill just completed) adds
/// its Listen target with `read_time` and `expected_count` (the documents the sink holds), not from scratch; once a
/// snapshot point brings a token, the sink stores it. Against `Scripts/grpc-script-server`.
@Suite(.timeLimit(.minutes(2))) struct MirrorReadTimeResumeTests {
    typealias S = ListenScript

    @Test func aSinkLoadedAtAReadTimeIsListenedToFromThatTime() async throws {
        let now = Timestamp.now()
        let loadedAt = try Timestamp(seconds: now.seconds - 10, nanos: 0)
        let point: JSONValue = [
            "respond": [
                "targetChange": [
                    "targetChangeType": "NO_CHANGE", "targetIds": [], "readTime": .string(Timestamp.now().rfc3339),
                ]
            ]
        ]
        let server = try await ScriptedGRPCServer.start(
            script: S.script([
                [S.awaitRequests(1), S.target("ADD", [1]), S.target("CURRENT", [1], token: [7]), point, S.hang]
            ])
        )
        let db = try Firestore.emulator(host: server.host, projectID: S.project)
        let path = NSTemporaryDirectory() + "mirror-readtime-\(UUID().uuidString).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let mirror = try await SQLiteMirror(path: path)
        let documents = ["a", "b"].map {
            Document(name: S.name($0), fields: ["n": 1], createTime: loadedAt, updateTime: loadedAt)
        }
        try await mirror.apply(FeedSinkBatch(changes: documents.map { .put($0) }, readTime: loadedAt, resumeToken: nil))

        let run = Task { try await db.collection("fruits").mirror(into: mirror) }
        let add = try #require(await server.requests(call: 1, atLeast: 1).first?["addTarget"])
        #expect(add["readTime"] == .string(loadedAt.rfc3339))
        #expect(add["resumeToken"] == nil)
        #expect(add["expectedCount"] == 2)
        #expect(await eventually(seconds: 30) { mirror.statistics.batches == 2 })
        run.cancel()
        try await run.value
        #expect(try await mirror.resumePoint(shard: 0)?.resumeToken == [7])
        #expect(try await mirror.documents() == documents)
    }
}
