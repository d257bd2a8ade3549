import FirestoreFeed
import FirestoreREST
import Testing

/// `print(event)` shows each case with its values and never `Optional(...)`.
@Suite(.timeLimit(.minutes(2))) struct FeedEventDescriptionTests {
    static let time: Timestamp = {
        guard let time = try? Timestamp(seconds: 1_767_225_600, nanos: 0) else { preconditionFailure("a valid time") }
        return time
    }()

    @Test(arguments: [
        (
            FeedEvent.resumedFromCheckpoint(key: "open-orders", readTime: time),
            #"resumedFromCheckpoint(key: "open-orders", readTime: 2026-01-01T00:00:00Z)"#
        ),
        (FeedEvent.resumedFromCheckpoint(key: "k", readTime: nil), #"resumedFromCheckpoint(key: "k", readTime: none)"#),
        (
            FeedEvent.listenFailed(
                FirestoreError(code: .unavailable, message: "reset"), retryIn: .milliseconds(250), staleSince: time),
            "listenFailed(unavailable: reset, retryIn: 0.25 seconds, staleSince: 2026-01-01T00:00:00Z)"
        ),
        (FeedEvent.listenRecovered(staleSince: time), "listenRecovered(staleSince: 2026-01-01T00:00:00Z)"),
        (FeedEvent.snapshotsCoalesced(count: 2), "snapshotsCoalesced(count: 2)"),
        (FeedEvent.fellBackToPolling(reason: "no HTTP/2"), #"fellBackToPolling(reason: "no HTTP/2")"#),
        (FeedEvent.recovered, "recovered"),
        (
            FeedEvent.leaseStolen(shard: 2, generation: 7, from: "member-a"),
            #"leaseStolen(shard: 2, generation: 7, from: "member-a")"#
        ),
    ])
    func describesEachCase(event: FeedEvent, expected: String) {
        #expect("\(event)" == expected)
    }
}
