import FirestoreREST

/// How a publish is retried: Pub/Sub's own client libraries' publish settings by default (the `Publish` method of
/// googleapis' `pubsub_grpc_service_config.json`, as the Python, Node and Java publishers use them).
///
/// A request answered with one of ``retryableCodes`` (or not answered: a transport failure is `UNAVAILABLE`; but not
/// a gRPC request answered with HTTP/1.x, which no attempt will change) is sent
/// again after a delay that starts at ``initialDelay`` and grows by ``multiplier`` to at most ``maxDelay``, each
/// delay drawn at random between half of it and all of it, until ``totalTimeout`` has passed since the first
/// attempt; then the last error is thrown. A publish sent again can be delivered twice: that is at least once, and
/// why every change message carries its (name, update time).
public struct PubSubRetrySettings: Sendable, Hashable {
    /// The codes a publish is retried on.
    public var retryableCodes: Set<FirestoreError.Code>
    /// The first delay.
    public var initialDelay: Duration
    /// The growth of the delay from one attempt to the next.
    public var multiplier: Double
    /// The longest delay.
    public var maxDelay: Duration
    /// How long from the first attempt a publish is retried.
    public var totalTimeout: Duration

    /// Settings of your own.
    public init(
        retryableCodes: Set<FirestoreError.Code>, initialDelay: Duration, multiplier: Double, maxDelay: Duration,
        totalTimeout: Duration
    ) {
        self.retryableCodes = retryableCodes
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.totalTimeout = totalTimeout
    }

    /// The client libraries' publish settings: `ABORTED`, `CANCELLED`, `DEADLINE_EXCEEDED`, `INTERNAL`,
    /// `RESOURCE_EXHAUSTED`, `UNAVAILABLE` and `UNKNOWN` retried; 100 ms, times 1.3, at most 60 s; 600 s in all.
    public static let publishDefaults = PubSubRetrySettings(
        retryableCodes: [
            .aborted, .cancelled, .deadlineExceeded, .internal, .resourceExhausted, .unavailable, .unknown,
        ],
        initialDelay: .milliseconds(100), multiplier: 1.3, maxDelay: .seconds(60), totalTimeout: .seconds(600))

    /// The delay before attempt `attempt + 1` (`attempt` counts from 1), before its random draw.
    func delay(after attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(attempt, 1) {
            delay = min(delay * multiplier, maxDelay)
            if delay == maxDelay { break }
        }
        return min(delay, maxDelay)
    }
}
