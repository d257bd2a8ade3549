import FirestoreREST

/// How often a change feed polls, how it slows down when nothing changes, and how it backs off after errors.
///
/// - Base: ``interval`` between the end of one poll and the start of the next.
/// - Idle back-off (optional): after ``IdleBackoff/afterUnchangedPolls`` polls in a row without a change, each
///   further unchanged poll multiplies the delay by ``IdleBackoff/factor`` up to ``IdleBackoff/maximum``; the
///   first change returns to ``interval``.
/// - Errors: a transient error waits ``errorBackoff`` `initial × multiplier^(n-1)` for the n-th failure in
///   a row, capped at its `maximum`, and never less than the server's `Retry-After` (`RetryPolicyTests`).
/// - Jitter: every delay is multiplied by a random factor in `1 ± jitter`, so many clients do not poll in
///   lock step.
public struct PollingPolicy: Sendable, Hashable {
    /// Slowing down while results stay the same.
    public struct IdleBackoff: Sendable, Hashable {
        /// Unchanged polls in a row before slowing down.
        public var afterUnchangedPolls: Int
        /// Multiplier per further unchanged poll (> 1).
        public var factor: Double
        /// The longest delay.
        public var maximum: Duration

        public init(afterUnchangedPolls: Int = 10, factor: Double = 2, maximum: Duration = .seconds(30)) {
            self.afterUnchangedPolls = max(0, afterUnchangedPolls)
            self.factor = max(1, factor)
            self.maximum = maximum
        }
    }

    /// Backing off after transient errors.
    public struct ErrorBackoff: Sendable, Hashable {
        /// The delay after the first failure.
        public var initial: Duration
        /// Multiplier per further failure in a row.
        public var multiplier: Double
        /// The longest delay (a longer `Retry-After` still wins).
        public var maximum: Duration

        public init(initial: Duration = .seconds(1), multiplier: Double = 2, maximum: Duration = .seconds(60)) {
            self.initial = initial
            self.multiplier = max(1, multiplier)
            self.maximum = maximum
        }
    }

    /// Time between polls while results change (at least 10 ms).
    public var interval: Duration
    /// Slowing down while nothing changes, or `nil` to always poll at ``interval``.
    public var idleBackoff: IdleBackoff?
    /// Back-off after transient errors.
    public var errorBackoff: ErrorBackoff
    /// Relative random spread of every delay, 0 ... 0.5 (0.1 = ±10 %).
    public var jitter: Double
    /// The Listen stream's liveness bound: the longest a dead stream (a stalled proxy, a NAT that dropped the
    /// connection, a server that stopped sending) goes unnoticed, at least 3 s. Default 60 s. A stream quiet for two
    /// thirds of it is probed (at most one billed read, `BilledReads.listenProbe`); one that still receives nothing
    /// a quarter of it later is ended and reopened on a new connection, resuming every target. Production Firestore
    /// sends a message about every 30 s on an idle stream, so a live production stream is not probed at the default.
    public var listenLivenessTimeout: Duration
    /// How many document changes one Listen target may buffer between consistent snapshot points before it is
    /// listened to again from scratch (`FeedEvent.listenTargetReset(reason:)`), so that a server that never completes
    /// a snapshot cannot grow memory without bound. Default 1,000,000 (at least 1).
    public var listenMaxPendingDocuments: Int
    /// How long a Listen feed that fell back to polling polls before it tries the Listen stream again. Default 5
    /// minutes (at least 1 s).
    public var listenRetryAfterFallback: Duration

    public init(
        interval: Duration = .seconds(1), idleBackoff: IdleBackoff? = nil,
        errorBackoff: ErrorBackoff = ErrorBackoff(), jitter: Double = 0.1,
        listenLivenessTimeout: Duration = .seconds(60), listenMaxPendingDocuments: Int = 1_000_000,
        listenRetryAfterFallback: Duration = .seconds(300)
    ) {
        self.interval = max(interval, .milliseconds(10))
        self.idleBackoff = idleBackoff
        self.errorBackoff = errorBackoff
        self.jitter = min(max(jitter, 0), 0.5)
        self.listenLivenessTimeout = max(listenLivenessTimeout, .seconds(3))
        self.listenMaxPendingDocuments = max(1, listenMaxPendingDocuments)
        self.listenRetryAfterFallback = max(listenRetryAfterFallback, .seconds(1))
    }

    /// The delay after a successful poll that followed `unchangedPolls` unchanged polls in a row (0 after a
    /// change), before jitter.
    package func delay(afterUnchangedPolls unchangedPolls: Int) -> Duration {
        guard let idle = idleBackoff, unchangedPolls > idle.afterUnchangedPolls else { return interval }
        let steps = Double(unchangedPolls - idle.afterUnchangedPolls)
        let grown = interval * min(pow(idle.factor, steps), 1e9)
        return min(grown, max(idle.maximum, interval))
    }

    /// The delay after the `failures`-th transient error in a row (1 for the first), at least `retryAfter`,
    /// before jitter.
    package func delay(afterFailures failures: Int, retryAfter: Duration?) -> Duration {
        let exponent = Double(max(0, failures - 1))
        let grown = errorBackoff.initial * min(pow(errorBackoff.multiplier, exponent), 1e9)
        let capped = min(grown, errorBackoff.maximum)
        return max(capped, retryAfter ?? .zero)
    }

    /// `delay` spread by the jitter, with `random` in 0 ..< 1.
    package func jittered(_ delay: Duration, random: Double) -> Duration {
        delay * (1 + jitter * (2 * random - 1))
    }

    /// Whether an error ends the feed: the code's row of the retry table the client's `RetryPolicy` reads too
    /// (`FirestoreError.Code.retryRule`, `FirestoreError.Code.RetryRule.feedRetries` unset). Errors that
    /// retrying cannot fix (`invalidArgument`, `failedPrecondition` such as a missing index, `permissionDenied`,
    /// `unauthenticated` after the credentials were renewed, `notFound`, `outOfRange`, `unimplemented`,
    /// `alreadyExists`, `dataLoss`) end it; every other error (`unavailable`, `deadlineExceeded`,
    /// `resourceExhausted`, `internal`, `aborted`, `unknown`, `cancelled` from the server, a network failure) is
    /// retried with back-off while the last good snapshot stays (`ErrorRetryTableTests`).
    public static func isPermanent(_ error: FirestoreError) -> Bool {
        !error.code.retryRule.feedRetries
    }
}

private func pow(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(min(exponent, 64))
    while remaining > 0 {
        result *= base
        remaining -= 1
    }
    return result
}
