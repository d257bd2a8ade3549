import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

/// BatchedArray on its real source, ``PollingQuerySource``, over a scripted transport and an immediate clock.
@Suite(.timeLimit(.minutes(2))) struct BatchedArrayPollingTests {
    /// Field case B-10 end to end, one poll per clock step: poll 1 gives [a,b]; poll 2 fails with 503; poll 3
    /// gives [a,b] again (recovered, nothing changed); poll 4 gives [a,b,c]. The array reports the error between
    /// the updates, keeps [a,b] through it, clears the error on recovery, then applies insert(c @2).
    @Test func aFailedPollIsReportedAndTheNextPollApplies() async throws {
        let ab = [("a", "2024-05-01T00:00:00Z", "A"), ("b", "2024-05-01T00:00:00Z", "B")]
        let transport = ScriptedTransport([
            .response(status: 200, body: RunQueryBody.make(readTime: "2024-05-01T00:00:01Z", ab)),
            .response(status: 503, body: #"{"error":{"code":503,"status":"UNAVAILABLE"}}"#),
            .response(status: 200, body: RunQueryBody.make(readTime: "2024-05-01T00:00:03Z", ab)),
            .response(
                status: 200,
                body: RunQueryBody.make(
                    readTime: "2024-05-01T00:00:04Z",
                    ab + [("c", "2024-05-01T00:00:02Z", "C")])),
        ])
        let db = try Firestore.offline(transport: transport)
        let clock = ManualClock()
        let policy = PollingPolicy(interval: .seconds(1), errorBackoff: .init(initial: .seconds(1)), jitter: 0)
        let source = PollingQuerySource(
            db.collection("fruits").order(by: "name"), mode: .full,
            policy: policy, pool: PollerPool(clock: clock))
        let delegate = RecordingDelegate()
        let array = BatchedArray(source: source, delegate: delegate)
        var events = delegate.events.makeAsyncIterator()
        array.observeQuery()
        #expect(await events.next() == .will(shown: [], deleted: [], inserted: [0, 1]))
        #expect(await events.next() == .did(shown: ["a", "b"]))

        try #require(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(1))
        #expect(await events.next() == .error("UNAVAILABLE"))
        #expect(array.items.map(\.documentID) == ["a", "b"])
        #expect((array.lastError as? FirestoreError)?.httpStatus == 503)

        try #require(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(1))
        #expect(await eventually { array.lastError == nil })
        #expect(array.items.map(\.documentID) == ["a", "b"])

        try #require(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(1))
        #expect(await events.next() == .will(shown: ["a", "b"], deleted: [], inserted: [2]))
        #expect(await events.next() == .did(shown: ["a", "b", "c"]))
        array.stopObserving()
        #expect(array[2]?.get("name") == .string("C"))
        #expect(delegate.log.count == 5)
        #expect(delegate.violations == [])
        #expect(transport.requests.count == 4)
    }

    /// An invalid query ends the source's listen with its error before anything is sent; the array reports it
    /// and stops observing.
    @Test func anInvalidQueryEndsTheListen() async throws {
        let transport = ScriptedTransport([])
        let db = try Firestore.offline(transport: transport)
        let source = PollingQuerySource(
            db.collection("fruits").whereField("", isEqualTo: 1),
            pool: PollerPool(clock: ImmediateClock()))
        let delegate = RecordingDelegate()
        let array = BatchedArray(source: source, delegate: delegate)
        var events = delegate.events.makeAsyncIterator()
        array.observeQuery()
        #expect(await events.next() == .error("INVALID_ARGUMENT"))
        #expect(await eventually { !array.isObserving })
        #expect(array.items.isEmpty)
        #expect(transport.requests.isEmpty)
    }
}
