import FirestoreFeed
import FirestoreFeedCLI
import FirestoreREST
import Synchronization
import Testing

/// `watch --max-failures N` (`FailureLimit`): the Nth failure in a row ends the watch with that failure; a
/// recovery starts the count again; without a limit every event is only reported.
@Suite(.timeLimit(.minutes(2))) struct FailureLimitTests {
    static let down = FirestoreError(code: .unavailable, message: "connection refused")
    static let stale = Timestamp.minimum

    /// The events a watch reported.
    final class Reported: Sendable {
        private let events = Mutex<[FeedEvent]>([])
        var all: [FeedEvent] { events.withLock { $0 } }
        func append(_ event: FeedEvent) { events.withLock { $0.append(event) } }
    }

    /// Reports events and waits, like a watch with no snapshots, until it is cancelled.
    static func idleWatch(sending events: [FeedEvent], reported: Reported, limit: Int?) async throws {
        try await FailureLimit(limit: limit).watching(report: reported.append) {
            onEvent in
            for event in events { onEvent(event) }
            // Idle like a watch with nothing new, until the limit cancels it (the sleep ends at once then).
            try? await Task.sleep(for: .seconds(100))
        }
    }

    @Test func theThirdFailureInARowEndsTheWatchWithIt() async throws {
        let reported = Reported()
        let events: [FeedEvent] = [
            .pollFailed(Self.down, retryIn: .seconds(1)), .recovered,
            .pollFailed(Self.down, retryIn: .seconds(1)),
            .listenFailed(Self.down, retryIn: .seconds(2), staleSince: Self.stale),
            .pollFailed(Self.down, retryIn: .seconds(4)), .pollFailed(Self.down, retryIn: .seconds(8)),
        ]
        let error = await #expect(throws: FirestoreError.self) {
            try await Self.idleWatch(sending: events, reported: reported, limit: 3)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "connection refused (3 failures in a row: --max-failures 3 ends the watch)")
        // The failure that gave up, and any after it, are not reported as retries.
        #expect(reported.all == Array(events.prefix(4)))
    }

    @Test func oneMeansTheFirstFailure() async throws {
        let reported = Reported()
        let error = await #expect(throws: FirestoreError.self) {
            try await Self.idleWatch(
                sending: [.fellBackToPolling(reason: "no h2"), .pollFailed(Self.down, retryIn: .seconds(1))],
                reported: reported, limit: 1)
        }
        #expect(error?.message == "connection refused (1 failure in a row: --max-failures 1 ends the watch)")
        #expect(reported.all == [.fellBackToPolling(reason: "no h2")])
    }

    @Test func withoutALimitEveryEventIsReported() async throws {
        let reported = Reported()
        let events = [FeedEvent](repeating: .pollFailed(Self.down, retryIn: .seconds(1)), count: 5)
        try await FailureLimit(limit: nil).watching(report: reported.append) {
            onEvent in
            for event in events { onEvent(event) }
        }
        #expect(reported.all == events)
    }
}
