import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The one retry table (`FirestoreError.Code.retryRule`), row by row, as the change feed uses it: a poll that fails
/// with the row's code is retried (the next poll's snapshot arrives, the failure reported as `.pollFailed`) or ends
/// the feed with that error. The client's side of every row is `ErrorRetryTableTests`; the Listen stream reads the
/// same `PollingPolicy.isPermanent(_:)` and reopens once after `unauthenticated` (`ListenReconnectLiveTests`).
@Suite(.timeLimit(.minutes(2))) struct FeedErrorRetryTableTests {
    @Test func isPermanentIsTheTablesFeedColumn() {
        for row in ExpectedRetryTable.rows {
            #expect(
                PollingPolicy.isPermanent(FirestoreError(code: row.code, message: "")) == !row.feedRetries, "\(row)")
        }
    }

    @Test(arguments: ExpectedRetryTable.rows)
    func aFailedPollIsRetriedOrEndsTheFeedAsItsRowSays(row: ExpectedRetryTable.Row) async throws {
        let transport = ScriptedTransport([
            .response(status: 400, body: ExpectedRetryTable.body(row.code)),
            .response(
                status: 200,
                body: RunQueryBody.make(readTime: "2024-05-01T00:00:01Z", [("a", "2024-05-01T00:00:00Z", "A")])),
        ])
        let db = try Firestore.offline(transport: transport)
        let events = ErrorLog()
        var feed = PollerPool(clock: CountingClock()).snapshots(
            of: db.collection("fruits").order(by: "name"), mode: .full,
            policy: PollingPolicy(interval: .seconds(1), jitter: 0)
        ) { events.append($0) }
        .makeAsyncIterator()
        if row.feedRetries {
            let snapshot = try #require(try await feed.next())
            #expect(snapshot.documents.map(\.documentID) == ["a"])
            #expect(events.codes == [row.code])
            #expect(transport.requests.count == 2)
        } else {
            let error = await #expect(throws: FirestoreError.self) { _ = try await feed.next() }
            #expect(error?.code == row.code)
            #expect(error?.message == "row \(row.code.name)")
            #expect(events.codes == [])
            #expect(transport.requests.count == 1)
        }
    }
}
