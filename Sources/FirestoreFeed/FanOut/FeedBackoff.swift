import FirestoreREST

/// The failures in a row of one feed and the back-off they call for: what a poller and a Listen stream share. The
/// n-th failure waits the policy's `PollingPolicy.delay(afterFailures:retryAfter:)`, spread by its jitter; the
/// delay reported is the one waited.
struct FeedBackoff: Sendable {
    let policy: PollingPolicy
    /// Failures since the last success.
    private(set) var failures = 0

    init(policy: PollingPolicy) {
        self.policy = policy
    }

    /// Counts a failure and returns how long to wait before the next attempt, jitter included.
    /// - Parameters:
    ///   - retryAfter: the server's `Retry-After`, a floor for the delay.
    ///   - random: a number in 0 ..< 1 for the jitter.
    mutating func failed(retryAfter: Duration?, random: Double) -> Duration {
        failures += 1
        return policy.jittered(policy.delay(afterFailures: failures, retryAfter: retryAfter), random: random)
    }

    /// Clears the count.
    /// - Returns: whether there were failures (the feed has recovered).
    mutating func succeeded() -> Bool {
        defer { failures = 0 }
        return failures > 0
    }
}
