import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

/// A session recorded from the real emulator replays with identical results, offline.
@Suite(.timeLimit(.minutes(2))) struct RecordReplayLiveTests {
    /// Writes, reads, a query, a count, an error and a change feed; every result as one JSON value, times
    /// included, so that a replay must reproduce them exactly.
    static func session(_ db: Firestore) async throws -> [JSONValue] {
        var results: [JSONValue] = []
        let fruits = db.collection("fruits")
        try await fruits.document("apple").setData(["name": "Apple", "kcal": 52, "isFavourite": true])
        try await fruits.document("kiwi").setData(["name": "Kiwi", "kcal": 61, "isFavourite": false])
        let apple = try await fruits.document("apple").getDocument()
        results.append([
            "apple": .string(apple.updateTime?.rfc3339 ?? "?"),
            "data": FirestoreValue.map(apple.data() ?? [:]).plainJSON,
        ])
        let query = try await fruits.whereField("kcal", isGreaterThan: 50).order(by: "kcal").getDocuments()
        results.append([
            "ids": .array(query.documents.map { .string($0.documentID) }),
            "readTime": .string(query.readTime?.rfc3339 ?? "?"),
        ])
        results.append(["count": .integer(try await fruits.count.getAggregation().count ?? -1)])
        do {
            try await fruits.document("plum").updateData(["kcal": 46])
            results.append("no error")
        } catch let error as FirestoreError {
            results.append(["error": .string(error.code.name), "status": .integer(Int64(error.httpStatus ?? 0))])
        }
        var feed = fruits.whereField("isFavourite", isEqualTo: true).snapshots(interval: .milliseconds(50))
            .makeAsyncIterator()
        for step in 0..<2 {
            if step == 1 { try await fruits.document("kiwi").updateData(["isFavourite": true]) }
            let snapshot = try #require(try await feed.next(), "the feed ended before snapshot \(step + 1)")
            results.append([
                "readTime": .string(snapshot.readTime?.rfc3339 ?? "?"),
                "changes": .array(snapshot.documentChanges.map { .string("\($0.type) \($0.document.documentID)") }),
            ])
        }
        return results
    }

    @Test func recordThenReplayGivesIdenticalResults() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("record")
        let path = NSTemporaryDirectory() + "\(project).json"
        defer { try? FileManager.default.removeItem(atPath: path) }

        let recorder = RecordingTransport(wrapping: CurlTransport(), savingTo: path)
        let live = try await Self.session(try Firestore.emulator(host: host, projectID: project, transport: recorder))
        // Required, not expected: the indexes below would trap (and end the whole test process) on fewer.
        try #require(live.count == 6, "\(live)")
        #expect(live[2] == ["count": 2])
        #expect(live[3] == ["error": "not-found", "status": 404])
        #expect(live[4]["changes"] == ["added apple"])
        #expect(live[5]["changes"] == ["added kiwi"])

        // From the file, in session order; the feed's Listen call was recorded too and replays from the file.
        let replay = ReplayTransport(cassette: try Cassette(contentsOfFile: path), options: .init(ordering: .session))
        let offline = Firestore(
            database: try DatabaseID(projectID: project), baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: replay, isEmulator: true)
        let replayed = try await Self.session(offline)
        #expect(replayed == live)
    }
}
