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
    /// Collects the feed's events.
    final class Events: Sendable {
        private let list = Mutex<[FeedEvent]>([])
        var all: [FeedEvent] { list.withLock { $0 } }
        func add(_ event: FeedEvent) { list.withLock { $0.append(event) } }
    }

    static let favourites = ReplayedDemo.favourites

    @Test func theRecordedListenSessionReplaysTheDemoChangesInOrder() async throws {
        let cassette = try ReplayedDemo.cassette("demo-listen.json")
        let transport = ReplayTransport(
            cassette: cassette, options: .init(ordering: .session), name: "demo-listen.json")
        let db = try ReplayedDemo.client(transport, projectID: "demo-listen")
        #expect(try await ReplayedDemo.seed(db))
        let events = Events()
        let taken = try await ReplayedDemo.run(
            Self.favourites(db).snapshots(source: .listen, onEvent: events.add), writes: ReplayedDemo.writes(db))
        #expect(taken.changes == ReplayedDemo.expectedChanges)
        #expect(taken.lists == ReplayedDemo.expectedLists)
        let readTimes = taken.readTimes
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
        let cassette = try ReplayedDemo.cassette("demo.json")
        let transport = ReplayTransport(cassette: cassette, name: "demo.json")
        let db = try ReplayedDemo.client(transport, projectID: "demo-fruits")
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
        let db = try ReplayedDemo.client(transport, projectID: "p")
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
        let cassette = try ReplayedDemo.cassette("demo-listen.json")
        let transport = ReplayTransport(cassette: cassette, name: "demo-listen.json")
        let db = try ReplayedDemo.client(transport, projectID: "demo-listen")
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
