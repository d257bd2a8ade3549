import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc  // pow
#elseif canImport(Musl)
    import Musl
#endif

/// When and how long the client waits before sending a failed request again.
///
/// Only idempotent calls are retried: `get` (``DocumentReference/getDocument()``), `list`
/// (``CollectionReference/listDocuments(pageSize:)``),
/// `runQuery` (``QueryRepresentable/getDocuments()``, every poll of a change feed), `batchGet`, `runAggregationQuery`
/// and ``Firestore/listCollectionIds(pageSize:)`` (`RequestRetryTests.listAndListCollectionIdsAndBatchGetAreRetried`).
/// A `commit` (and every other write, `beginTransaction`, `rollback`) is sent again only when the transport proves it
/// never reached the server (connection refused, DNS failure) or when the token could not be obtained; a commit whose
/// fate is unknown is never retried blindly, since it may have been applied. Transactions retry as a whole on `ABORTED`
/// in ``Firestore/runTransaction(maxAttempts:isolation:_:)``.
///
/// Back-off (capped, jittered, exponential): before retry *n* (1, 2, ...) the client waits
/// `b = min(maxBackoff, initialBackoff × multiplier^(n−1))` scaled by a random factor in `[1 − jitter, 1]`.
/// A server delay (`Retry-After` in seconds or as an HTTP date, or a `google.rpc.RetryInfo` `retryDelay` in
/// the error body) raises the wait to at least that delay; a server delay longer than ``maxServerDelay`` ends
/// the retries at once with the server's error.
///
/// Time is injected: the waits run on ``clock``, so tests can use a clock that does not sleep.
public struct RetryPolicy: Sendable {
    /// Attempts in total, the first included: 1 means no retry. Default 5.
    public var maxAttempts: Int
    /// The wait before the first retry, before jitter. Default 250 ms.
    public var initialBackoff: Duration
    /// The longest wait between attempts from back-off alone. Default 32 s.
    public var maxBackoff: Duration
    /// The factor between consecutive waits. Default 2.
    public var multiplier: Double
    /// The fraction of each wait that is random, 0 (none) ... 1 (full jitter). Default 0.5.
    public var jitter: Double
    /// The longest server-requested delay the client is willing to wait; a longer one ends the retries.
    /// Default 60 s.
    public var maxServerDelay: Duration
    /// The error codes worth another attempt. Default: ``FirestoreError/Code/retriedRequestCodes``, the codes the
    /// retry table (``FirestoreError/Code/retryRule``) retries, which the change feed reads too: `.unavailable`
    /// (503, connection failures), `.resourceExhausted` (429, quota), `.internal` (500), `.unknown` (500 without a
    /// status the client knows), `.deadlineExceeded` (504, timeouts).
    public var retryableCodes: Set<FirestoreError.Code>
    /// The clock the waits run on. Default `ContinuousClock()`.
    public var clock: any Clock<Duration>

    /// A policy; every parameter has the documented default.
    public init(
        maxAttempts: Int = 5, initialBackoff: Duration = .milliseconds(250), maxBackoff: Duration = .seconds(32),
        multiplier: Double = 2, jitter: Double = 0.5, maxServerDelay: Duration = .seconds(60),
        retryableCodes: Set<FirestoreError.Code> = FirestoreError.Code.retriedRequestCodes,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.maxAttempts = max(maxAttempts, 1)
        self.initialBackoff = max(initialBackoff, .zero)
        self.maxBackoff = max(maxBackoff, .zero)
        self.multiplier = multiplier.isFinite ? max(multiplier, 1) : 1
        self.jitter = jitter.isFinite ? min(max(jitter, 0), 1) : 0
        self.maxServerDelay = max(maxServerDelay, .zero)
        self.retryableCodes = retryableCodes
        self.clock = clock
    }

    /// The default policy (5 attempts, 250 ms doubling up to 32 s, half jitter).
    public static var `default`: RetryPolicy { RetryPolicy() }

    /// No retries at all: the first failure is returned.
    public static var none: RetryPolicy { RetryPolicy(maxAttempts: 1) }

    /// Whether `error`'s code is one of ``retryableCodes``.
    public func isRetryable(_ error: FirestoreError) -> Bool {
        retryableCodes.contains(error.code)
    }

    /// The back-off before retry `retry` (1 for the first retry), without jitter:
    /// `min(maxBackoff, initialBackoff × multiplier^(retry−1))`.
    public func backoff(beforeRetry retry: Int) -> Duration {
        let exponent = Double(max(retry, 1) - 1)
        let seconds = Self.seconds(initialBackoff) * pow(multiplier, exponent)
        let capped = min(seconds, Self.seconds(maxBackoff))
        return Self.duration(capped.isFinite ? capped : Self.seconds(maxBackoff))
    }

    /// The wait before retry `retry`, or `nil` when the server asked for a longer delay than
    /// ``maxServerDelay`` (then the client gives up).
    /// - Parameters:
    ///   - retry: 1 for the first retry.
    ///   - serverDelay: the delay the server asked for, if any.
    ///   - randomUnit: a random number in `0..<1` (injected for tests); the back-off is scaled by
    ///     `1 − jitter × randomUnit`.
    public func delay(beforeRetry retry: Int, serverDelay: Duration? = nil, randomUnit: Double) -> Duration? {
        if let serverDelay, serverDelay > maxServerDelay { return nil }
        let unit = randomUnit.isFinite ? min(max(randomUnit, 0), 1) : 0
        let jittered = Self.duration(Self.seconds(backoff(beforeRetry: retry)) * (1 - jitter * unit))
        return max(jittered, serverDelay ?? .zero)
    }

    /// The delay a failed response asks for: its `Retry-After` header (delta-seconds, or an HTTP date measured
    /// from now, RFC 9110 §10.2.3), else a `google.rpc.RetryInfo` `retryDelay` (`"1.5s"`)
    /// in the error body's `details`; `nil` when it names none. A date in the past counts as zero.
    public static func serverDelay(of response: HTTPResponse) -> Duration? {
        if let delay = response.header("Retry-After").flatMap(FirestoreError.parseRetryAfter) {
            return delay
        }
        guard let json = try? JSONValue.parse(response.body), let error = FirestoreError.findErrorObject(in: json),
            case .array(let details)? = error["details"]
        else { return nil }
        for detail in details where detail["@type"]?.stringValue == "type.googleapis.com/google.rpc.RetryInfo" {
            if let text = detail["retryDelay"]?.stringValue, text.hasSuffix("s"),
                let seconds = Double(text.dropLast()), seconds.isFinite, seconds >= 0
            {
                return duration(seconds)
            }
        }
        return nil
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func duration(_ seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .nanoseconds(Int64(min(seconds, 9e9) * 1e9))
    }
}
