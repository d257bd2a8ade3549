import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Testing

/// A client's `shutdown()` ends its polling feeds (the pool keeps serving other clients and forgets the shut-down
/// one's poller), and a feed of a shut-down client ends at once. `ShutdownLiveTests` does the same against the
/// emulator with a Listen feed beside.
@Suite(.timeLimit(.minutes(2))) struct PollerShutdownTests {
    static let error = FirestoreError(
        code: .cancelled,
        message: "the Firestore client of projects/p/databases/(default) was shut down (Firestore.shutdown()); "
            + "make a new client to go on")

    @Test func shutdownEndsAPollingFeedWhosePollIsInFlight() async throws {
        let transport = UnansweredTransport()
        let db = try Firestore.offline(transport: transport)
        let pool = PollerPool(clock: ContinuousClock())
        let feed = pool.snapshots(of: db.collection("fruits").query, mode: .keys)
        let ended = Task { () -> FirestoreError? in
            do {
                for try await _ in feed {}
                return nil
            } catch {
                return error as? FirestoreError
            }
        }
        #expect(await eventually(seconds: 60) { transport.waitingCount == 1 })
        #expect(pool.pollerCount == 1)
        await db.shutdown()
        #expect(await ended.value == Self.error)
        #expect(pool.pollerCount == 0)
        #expect(transport.waitingCount == 0)

        // A new feed of the shut-down client ends at once, without a request or a poller.
        await #expect(throws: Self.error) {
            for try await _ in pool.snapshots(of: db.collection("fruits").query, mode: .keys) {}
        }
        #expect(pool.pollerCount == 0)
        #expect(transport.sentCount == 1)
    }

    @Test func aListenFeedOfAShutDownClientEndsAtOnce() async throws {
        let db = try Firestore.offline(transport: UnansweredTransport())
        await db.shutdown()
        await #expect(throws: Self.error) {
            for try await _ in db.collection("fruits").snapshots(source: .listen) {}
        }
    }
}
