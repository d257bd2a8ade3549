import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

/// The Listen feed (`snapshots(source: .listen)`) on replayed cassettes: the demo's Listen session recorded from
/// the real emulator (`Recordings/demo-listen.json`) gives the demo's change list offline; a cassette without a
/// Listen session, or a transport that cannot carry one, falls back to polling and says why; a Listen request the
/// cassette never saw ends the feed with what differed.
@Suite(.timeLimit(.minutes(2))) struct ListenReplayFeedTests {
    static let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Recordings")

    typealias Change = DemoRecordingFeedTests.Change

    static func client(_ transport: any HTTPTransport, projectID: String) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: projectID), baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: transport, isEmulator: true)
    }

    /// Collects the feed's events.
    final class Events: Sendable {
        private let list = Mutex<[FeedEvent]>([])
        var all: [FeedEvent] { list.withLock { $0 } }
        func add(_ event: FeedEvent) { list.withLock { $0.append(event) } }
    }

    static let favourites: @Sendable (Firestore) -> Query = { db in
        db.collection("fruits").whereField("isFavourite", isEqualTo: true).order(by: "name")
    }

    @Test func theRecordedListenSessionReplaysTheDemoChangesInOrder() async throws {
        let cassette = try Cassette(contentsOfFile: Self.recordings.appendingPathComponent("demo-listen.json").path)
        let transport = ReplayTransport(
            cassette: cassette, options: .init(ordering: .session), name: "demo-listen.json")
        let db = try Self.client(transport, projectID: "demo-listen")
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
        let events = Events()
        var changes: [[Change]] = []
        var lists: [[String]] = []
        var readTimes: [Timestamp] = []
        do {
            var iterator = Self.favourites(db).snapshots(source: .listen, onEvent: events.add).makeAsyncIterator()
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
        // Each snapshot is at the read time of a recorded snapshot point (a NO_CHANGE for every target).
        let session = try #require(cassette.listenSessions.first)
        let pointTimes = try session.responses.compactMap { response -> Timestamp? in
            guard let change = response["targetChange"], change["targetIds"] == nil,
                change["targetChangeType"] == nil, let text = change["readTime"]?.stringValue
            else { return nil }
            return try Timestamp(rfc3339: text)
        }
        #expect(readTimes.count == 6)
        #expect(readTimes == pointTimes)
        // Listened, never polled: no fallback, no poll in the cassette, every write and the session played.
        #expect(events.all.isEmpty, "\(events.all)")
        #expect(cassette.interactions.allSatisfy { !$0.request.path.hasSuffix(":runQuery") })
        #expect(transport.unplayedIndices.isEmpty)
        #expect(transport.unplayedListenSessionIndices.isEmpty)
    }

    @Test func aCassetteWithoutAListenSessionPollsAndSaysWhy() async throws {
        let cassette = try Cassette(contentsOfFile: Self.recordings.appendingPathComponent("demo.json").path)
        let transport = ReplayTransport(cassette: cassette, name: "demo.json")
        let db = try Self.client(transport, projectID: "demo-fruits")
        let events = Events()
        var iterator = Self.favourites(db).snapshots(source: .listen, onEvent: events.add).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.documents.map(\.documentID) == ["apple", "banana", "date"])
        #expect(first.statistics != nil)  // a polled snapshot
        guard case .fellBackToPolling(let reason)? = events.all.first else {
            Issue.record("expected a fallback first, got \(events.all)")
            return
        }
        #expect(
            reason
                == "unimplemented: demo.json holds no recorded Listen session, so a Listen stream cannot be replayed from it"
        )
    }

    @Test func aTransportThatCannotCarryAListenStreamPollsAndSaysWhy() async throws {
        let body = #"[{"readTime":"2024-05-01T00:00:01Z"}]"#
        let transport = ScriptedTransport { _, _ in HTTPResponse(status: 200, body: Data(body.utf8)) }
        let db = try Self.client(transport, projectID: "p")
        let events = Events()
        var iterator = Self.favourites(db).snapshots(source: .listen, onEvent: events.add).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.isEmpty)
        guard case .fellBackToPolling(let reason)? = events.all.first else {
            Issue.record("expected a fallback first, got \(events.all)")
            return
        }
        #expect(
            reason
                == "the client's transport (ScriptedTransport) cannot open a Listen stream: it needs CurlTransport "
                + "(gRPC over HTTP/2), or FirestoreTesting's RecordingTransport or ReplayTransport")
    }

    @Test func aListenRequestTheCassetteNeverSawEndsTheFeedWithWhatDiffered() async throws {
        let cassette = try Cassette(contentsOfFile: Self.recordings.appendingPathComponent("demo-listen.json").path)
        let transport = ReplayTransport(cassette: cassette, name: "demo-listen.json")
        let db = try Self.client(transport, projectID: "demo-listen")
        let query = db.collection("fruits").whereField("isFavourite", isEqualTo: false).order(by: "name")
        do {
            for try await snapshot in query.snapshots(source: .listen) {
                Issue.record("no snapshot expected, got \(snapshot.documents.map(\.documentID))")
            }
            Issue.record("the feed must end with an error")
        } catch let error as FirestoreError {
            #expect(error.code == .failedPrecondition)
            #expect(error.message.hasPrefix("demo-listen.json: no recorded Listen session starts with the request "))
            #expect(
                error.message.hasSuffix(
                    "; closest is session 0, which differs at addTarget.query.structuredQuery.where.fieldFilter.value.booleanValue"
                ), "\(error.message)")
        }
    }
}
