import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Foundation
import Testing

/// The demo's change-feed session recorded from the real emulator (`Recordings/demo.json`), replayed
/// offline through the feed: the same writes, the same polls, in recorded order.
@Suite(.timeLimit(.minutes(2))) struct DemoRecordingFeedTests {
    static let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Recordings")

    struct Change: Equatable, CustomStringConvertible {
        var type: DocumentChangeType
        var id: String
        var oldIndex: Int?
        var newIndex: Int?
        var description: String {
            "\(type) \(id) \(oldIndex.map(String.init) ?? "nil")->\(newIndex.map(String.init) ?? "nil")"
        }
    }

    @Test func theRecordedFeedReplaysTheDemoChangesInOrder() async throws {
        let cassette = try Cassette(contentsOfFile: Self.recordings.appendingPathComponent("demo.json").path)
        let transport = ReplayTransport(cassette: cassette, options: .init(ordering: .session), name: "demo.json")
        let db = Firestore(
            database: try DatabaseID(projectID: "demo-fruits"), baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: transport, isEmulator: true)
        let fruits = db.collection("fruits")
        #expect(try await fruits.listDocuments().isEmpty)
        let seeds: [(String, [String: WriteValue])] = [
            ("apple", ["name": "Apple", "color": "red", "isFavourite": true, "calories": 52]),
            ("banana", ["name": "Banana", "color": "yellow", "isFavourite": true, "calories": 89]),
            ("cherry", ["name": "Cherry", "color": "red", "isFavourite": false, "calories": 50]),
            ("date", ["name": "Date", "color": "brown", "isFavourite": true, "calories": 282]),
        ]
        for (id, fields) in seeds { try await fruits.document(id).setData(fields) }
        let writes: [@Sendable () async throws -> Void] = [
            {
                try await db.document("fruits/fig").setData([
                    "name": "Fig", "color": "purple", "isFavourite": true, "calories": 74,
                ])
            },
            { try await db.document("fruits/apple").updateData(["color": "green"]) },
            { try await db.document("fruits/banana").updateData(["name": "Plantain"]) },
            { try await db.document("fruits/date").updateData(["isFavourite": false]) },
            { try await db.document("fruits/fig").delete() },
        ]
        let query = fruits.whereField("isFavourite", isEqualTo: true).order(by: "name")
        let pool = PollerPool(clock: ImmediateClock())
        var iterator = pool.snapshots(of: query, policy: PollingPolicy(interval: .milliseconds(200)))
            .makeAsyncIterator()
        var changes: [[Change]] = []
        var lists: [[String]] = []
        var readTimes: [Timestamp] = []
        func take() async throws {
            guard let snapshot = try await iterator.next() else {
                throw FirestoreError(code: .cancelled, message: "ended")
            }
            changes.append(
                snapshot.documentChanges.map {
                    Change(type: $0.type, id: $0.document.documentID, oldIndex: $0.oldIndex, newIndex: $0.newIndex)
                })
            lists.append(snapshot.documents.map(\.documentID))
            if let time = snapshot.readTime { readTimes.append(time) }
        }
        try await take()
        for write in writes {
            try await write()
            try await take()
        }
        #expect(
            changes == [
                [
                    Change(type: .added, id: "apple", oldIndex: nil, newIndex: 0),
                    Change(type: .added, id: "banana", oldIndex: nil, newIndex: 1),
                    Change(type: .added, id: "date", oldIndex: nil, newIndex: 2),
                ],
                [Change(type: .added, id: "fig", oldIndex: nil, newIndex: 3)],
                [Change(type: .modified, id: "apple", oldIndex: 0, newIndex: 0)],
                [Change(type: .modified, id: "banana", oldIndex: 1, newIndex: 3)],
                [Change(type: .removed, id: "date", oldIndex: 1, newIndex: nil)],
                [Change(type: .removed, id: "fig", oldIndex: 1, newIndex: nil)],
            ])
        #expect(
            lists == [
                ["apple", "banana", "date"], ["apple", "banana", "date", "fig"], ["apple", "banana", "date", "fig"],
                ["apple", "date", "fig", "banana"], ["apple", "fig", "banana"], ["apple", "banana"],
            ])
        #expect(readTimes.count == 6)
        #expect(readTimes == readTimes.sorted())
        // Every write was played; at most a poll the recording caught after the last snapshot is left.
        let lastWrite = cassette.interactions.lastIndex { $0.request.path.hasSuffix(":commit") } ?? -1
        #expect(
            transport.unplayedIndices.allSatisfy { index in
                let path = cassette.interactions[index].request.path
                return index > lastWrite && (path.hasSuffix(":runQuery") || path.hasSuffix(":batchGet"))
            })
    }
}
