import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

/// Issue 17, as reported: the demo's feed recorded with its writes in between (`Recordings/demo.json`, seeds then
/// polls and writes), replayed as the feed alone in session order, printed its first snapshot and then waited
/// forever. Now the poll held behind the first unmade write fails after the stall timeout, and being a
/// `failed-precondition` (permanent), the error ends the feed with the diagnosis. The same holds for the Listen
/// stream replayed from `Recordings/demo-listen.json`: its responses wait for the interactions recorded before
/// them (`afterInteractions`), and the first one held behind an unmade write ends the feed naming it.
@Suite(.timeLimit(.minutes(2))) struct ReplayedFeedStallTests {
    @Test func aFeedReplayedWithoutItsWritesEndsNamingTheFirstOne() async throws {
        let cassette = try ReplayedDemo.cassette("demo.json")
        let transport = ReplayTransport(
            cassette: cassette, options: .init(ordering: .session, stallTimeout: .milliseconds(300)),
            name: "demo.json")
        let db = try ReplayedDemo.client(transport, projectID: "demo-fruits")
        // The demo's clean-up and seeds, as recorded; then the feed alone, without the demo's writes.
        #expect(try await ReplayedDemo.seed(db))
        let query = ReplayedDemo.favourites(db)
        var iterator = PollerPool(clock: ImmediateClock())
            .snapshots(of: query, policy: PollingPolicy(interval: .milliseconds(200))).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.documents.map(\.documentID) == ["apple", "banana", "date"])
        let error = await #expect(throws: FirestoreError.self) { _ = try await iterator.next() }
        #expect(error?.code == .failedPrecondition)
        // The next poll waits for the first write (fig), the interaction after the first poll's two.
        let fig = try #require(
            cassette.interactions.indices.first { index in
                cassette.interactions[index].request.body.map { String(decoding: $0, as: UTF8.self) }?
                    .contains("fruits/fig") == true
            })
        #expect(
            error?.message.contains(
                "is held in session order behind interaction \(fig) (POST /v1/projects/demo-fruits/databases/(default)"
                    + "/documents:commit), which nothing requested in 0.3 s") == true,
            "\(error?.message ?? "")")
        #expect(try await iterator.next() == nil)
    }

    @Test func aListenFeedReplayedWithoutItsWritesEndsNamingTheFirstOne() async throws {
        let cassette = try ReplayedDemo.cassette("demo-listen.json")
        let transport = ReplayTransport(
            cassette: cassette, options: .init(ordering: .session, stallTimeout: .milliseconds(300)),
            name: "demo-listen.json")
        let db = try ReplayedDemo.client(transport, projectID: "demo-listen")
        #expect(try await ReplayedDemo.seed(db))
        var iterator = ReplayedDemo.favourites(db).snapshots(source: .listen).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.documents.map(\.documentID) == ["apple", "banana", "date"])
        // The next response was recorded after the sixth interaction, the first write (fig), which is never made.
        let error = await #expect(throws: FirestoreError.self) { _ = try await iterator.next() }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "demo-listen.json: listenSessions[0].messages[7] was recorded after 6 interactions and is held "
                + "until they were played, but interaction 5 (POST /v1/projects/demo-listen/databases/(default)"
                + "/documents:commit) was not requested in 0.3 s: the code under test does not make the requests "
                + "(writes) recorded while it listened; make them too, or use ordering .perRequest to replay the "
                + "Listen session on its own",
            "\(error?.message ?? "")")
        #expect(transport.unplayedIndices == [5, 6, 7, 8, 9])
    }
}
