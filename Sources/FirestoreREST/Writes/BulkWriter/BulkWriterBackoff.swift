import FirestoreWire

/// The Node SDK's BulkWriter retry rules (`bulk-writer.ts`, `backoff.ts`): which failed writes are retried by
/// default, and how long a retried write waits.
package enum BulkWriterBackoff {
    /// The wait before a write's first retry: 1 s (`DEFAULT_BACKOFF_INITIAL_DELAY_MS`).
    package static let initialDelay = Duration.seconds(1)
    /// The factor between a write's consecutive waits: 1.5 (`DEFAULT_BACKOFF_FACTOR`).
    package static let factor = 1.5
    /// The longest wait, and the wait after `RESOURCE_EXHAUSTED`: 60 s (`DEFAULT_BACKOFF_MAX_DELAY_MS`).
    package static let maxDelay = Duration.seconds(60)
    /// The random share of each wait, ± 30 % (`DEFAULT_JITTER_FACTOR`).
    package static let jitter = 0.3
    /// Attempts before the default rule gives up: 10 (`MAX_RETRY_ATTEMPTS`).
    package static let maxAttempts = 10
    /// The codes the default rule retries: those the SDK's gRPC configuration retries for `BatchWrite`.
    package static let retryableCodes: Set<FirestoreError.Code> = [.aborted, .unavailable, .resourceExhausted]

    /// The default error rule: retry `ABORTED`, `UNAVAILABLE` and `RESOURCE_EXHAUSTED`, and `INTERNAL` for a delete,
    /// while fewer than 10 attempts have failed.
    package static func shouldRetry(_ error: BulkWriterError) -> Bool {
        let retryable =
            retryableCodes.contains(error.code) || (error.operationType == .delete && error.code == .internal)
        return retryable && error.failedAttempts < maxAttempts
    }

    /// A write's wait before its next attempt, after one that waited `previous` (zero before the first retry) failed
    /// with `code`: 60 s after `RESOURCE_EXHAUSTED`, else 1 s at first, then 1.5 times the previous wait.
    package static func next(after previous: Duration, failedWith code: FirestoreError.Code) -> Duration {
        if code == .resourceExhausted { return maxDelay }
        if previous == .zero { return initialDelay }
        return previous * factor
    }

    /// `backoff` with ± 30 % jitter, at most 60 s: `min(60 s, backoff × (1 + 0.3 × (2 × randomUnit − 1)))`; zero
    /// stays zero.
    /// - Parameter randomUnit: a random number in `0 ..< 1` (injected for tests).
    package static func jittered(_ backoff: Duration, randomUnit: Double) -> Duration {
        guard backoff > .zero else { return .zero }
        let unit = randomUnit.isFinite ? min(max(randomUnit, 0), 1) : 0.5
        return min(maxDelay, backoff * (1 + jitter * (2 * unit - 1)))
    }
}
