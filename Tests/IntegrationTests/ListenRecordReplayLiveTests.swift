import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

/// A Listen session recorded from the real emulator through `RecordingTransport` (a query listener and a
/// document listener sharing one stream, under writes) replays offline, from the saved file, with the writes in
/// session order, to the same snapshots: documents, changes with their indexes, read times.
@Suite(.timeLimit(.minutes(2))) struct ListenRecordReplayLiveTests {
    /// One snapshot as a JSON value, so that live and replayed ones compare exactly.
    static func summary(_ snapshot: QuerySnapshot) -> JSONValue {
        [
            "readTime": .string(snapshot.readTime?.rfc3339 ?? "-"),
            "documents": .array(
                snapshot.documents.map { document in
                    ["id": .string(document.documentID), "data": FirestoreValue.map(document.data() ?? [:]).plainJSON]
                }),
            "changes": .array(
                snapshot.documentChanges.map { change in
                    .string(
                        "\(change.type) \(change.document.documentID) \(change.oldIndex ?? -1)->\(change.newIndex ?? -1)"
                    )
                }),
        ]
    }

    static func summary(_ snapshot: DocumentSnapshot) -> JSONValue {
        [
            "id": .string(snapshot.documentID), "exists": .bool(snapshot.exists),
            "data": FirestoreValue.map(snapshot.data() ?? [:]).plainJSON,
        ]
    }

    /// Writes apple, banana and cherry.
    static func seed(_ db: Firestore) async throws {
        for (id, kcal) in [("apple", 52), ("banana", 89), ("cherry", 50)] {
            try await db.document("fruits/\(id)").setData([
                "name": .string(id.capitalized), "kcal": .integer(Int64(kcal)),
            ])
        }
    }

    /// Listens to the three `fruits` lowest in kcal and to `fruits/kiwi`; with `write`, adds kiwi (it enters the
    /// three), changes apple and deletes kiwi between snapshots. Every snapshot of both listeners in the order
    /// taken.
    static func session(_ db: Firestore, write: Bool) async throws -> [JSONValue] {
        let fruits = db.collection("fruits")
        var results: [JSONValue] = []
        var query = fruits.order(by: "kcal").limit(to: 3).snapshots(source: .listen).makeAsyncIterator()
        func nextQuery() async throws {
            guard let snapshot = try await query.next() else {
                throw FirestoreError(code: .cancelled, message: "ended")
            }
            results.append(summary(snapshot))
        }
        try await nextQuery()
        var kiwi = fruits.document("kiwi").snapshots(source: .listen).makeAsyncIterator()
        func nextKiwi() async throws {
            guard let snapshot = try await kiwi.next() else { throw FirestoreError(code: .cancelled, message: "ended") }
            results.append(summary(snapshot))
        }
        try await nextKiwi()
        if write { try await fruits.document("kiwi").setData(["name": "Kiwi", "kcal": 61]) }
        try await nextQuery()
        try await nextKiwi()
        if write { try await fruits.document("apple").updateData(["kcal": 53]) }
        try await nextQuery()
        if write { try await fruits.document("kiwi").delete() }
        try await nextQuery()
        try await nextKiwi()
        return results
    }

    @Test func aRecordedListenSessionReplaysToTheSameSnapshots() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("listen-record")
        let path = NSTemporaryDirectory() + "\(project).json"
        defer { try? FileManager.default.removeItem(atPath: path) }

        let recorder = RecordingTransport(wrapping: CurlTransport(), savingTo: path)
        let db = try Firestore.emulator(host: host, projectID: project, transport: recorder)
        try await Self.seed(db)
        let live = try await Self.session(db, write: true)
        #expect(live.count == 7)
        #expect(live[0]["changes"] == ["added cherry -1->0", "added apple -1->1", "added banana -1->2"])
        #expect(live[1] == ["id": "kiwi", "exists": false, "data": [:]])
        #expect(live[2]["changes"] == ["removed banana 2->-1", "added kiwi -1->2"])
        #expect(live[3] == ["id": "kiwi", "exists": true, "data": ["kcal": 61, "name": "Kiwi"]])
        #expect(live[4]["changes"] == ["modified apple 1->1"])
        #expect(live[5]["changes"] == ["removed kiwi 2->-1", "added banana -1->2"])
        #expect(live[6] == ["id": "kiwi", "exists": false, "data": [:]])

        // Both listeners shared one Listen call: one session, two targets added, ended by the client leaving.
        let saved = try await Self.savedCassette(path)
        #expect(saved.listenSessions.count == 1)
        let session = try #require(saved.listenSessions.first)
        #expect(session.requests.compactMap { $0["addTarget"]?["targetId"] } == [1, 2])
        // The first listener to leave removes its target with a message; the last one's target may go with the call
        // itself, when the client closes the stream before sending its removal (both orders seen).
        let removed = Set(session.requests.compactMap { $0["removeTarget"] })
        #expect(removed == [1, 2] || removed == [1] || removed == [2], "\(removed)")
        #expect(session.end == .cancelledByClient)
        #expect(session.metadata.first { $0.name == "authorization" }?.value == "Bearer <REDACTED>")

        // Every response is held until the writes sent before it arrived were played (session order).
        let after = session.messages.filter { $0.direction == .response }.compactMap(\.afterInteractions)
        #expect(after.first == 3)
        #expect(after.last == 6)
        #expect(after == after.sorted())

        // Offline: the same snapshots from the file, the recorded writes replayed in session order, so each
        // snapshot follows the write that caused it (a consumer that keeps up gets every snapshot).
        let replay = ReplayTransport(cassette: saved, options: .init(ordering: .session), name: "\(project).json")
        let offline = Firestore(
            database: try DatabaseID(projectID: project), baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: replay, isEmulator: true)
        try await Self.seed(offline)
        let replayed = try await Self.session(offline, write: true)
        #expect(replayed == live)
        #expect(replay.unplayedListenSessionIndices.isEmpty)
        #expect(replay.unplayedIndices.isEmpty)
    }

    /// The cassette file once the Listen session in it has ended (the leaving listeners cancel the call from
    /// their termination handlers; the file is rewritten when the stream sees the cancellation), or as it is
    /// after 30 s.
    static func savedCassette(_ path: String) async throws -> Cassette {
        for _ in 0..<300 {
            let cassette = try Cassette(contentsOfFile: path)
            if cassette.listenSessions.first?.end != nil { return cassette }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try Cassette(contentsOfFile: path)
    }
}
