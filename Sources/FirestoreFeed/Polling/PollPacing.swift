import FirestoreREST

/// Whether a poller keeps its interval, for ``FeedEvent/intervalNotKept(interval:actual:)``.
///
/// A successful poll is late when it took longer than the delay that follows it (so the time from its start to the
/// next poll's start is more than twice the interval). After ``lateStreak`` late polls in a row the pacing reports
/// the mean start-to-start time of the polls since the streak began (or since the last report), and reports again
/// after another ``reportEvery`` of such time while polls stay late. A poll on time ends the streak.
struct PollPacing: Sendable {
    /// Late polls in a row before the first report.
    static let lateStreak = 3
    /// The least time (the sum of the late polls' start-to-start times) between two reports of one streak.
    static let reportEvery: Duration = .seconds(30)

    private var late = 0
    private var periods: Duration = .zero
    private var counted = 0
    private var reported = false

    /// Records one successful poll that took `latency` and is followed by a pause of `delay` (before jitter).
    /// - Returns: the event to send, if any.
    mutating func record(latency: Duration, delay: Duration) -> FeedEvent? {
        guard latency > delay else {
            self = PollPacing()
            return nil
        }
        late += 1
        periods += latency + delay
        counted += 1
        guard late >= Self.lateStreak, !reported || periods >= Self.reportEvery else { return nil }
        let actual = periods / counted
        reported = true
        periods = .zero
        counted = 0
        return .intervalNotKept(interval: delay, actual: actual)
    }
}
