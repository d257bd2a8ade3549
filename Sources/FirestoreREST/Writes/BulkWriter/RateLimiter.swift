import FirestoreWire

#if canImport(Glibc)
    import Glibc  // pow
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A token bucket that lets at most `capacity` operations per second through, the capacity growing by `multiplier`
/// every `multiplierPeriod` up to `maximumCapacity`: the 500/50/5 rule of Firestore's best practices ("Ramping up
/// traffic", https://firebase.google.com/docs/firestore/best-practices#ramping_up_traffic: start at 500 operations
/// per second, add 50 % every 5 minutes), with the arithmetic of the Node SDK's `RateLimiter` (`rate-limiter.ts`),
/// in whole milliseconds:
///
/// - capacity at `t` = `min(maximumCapacity, floor(initialCapacity × multiplier^floor(t / multiplierPeriod)))`:
///   500, 750, 1125, 1687, 2531, 3796, 5695, 8542, then 10,000 (the default maximum) from minute 40;
/// - the bucket starts full (`initialCapacity` tokens) and gains `floor(elapsed ms × capacity / 1000)` tokens when
///   at least one is due, never holding more than the capacity;
/// - a request of `n` operations takes `n` tokens if there are that many.
///
/// Times are offsets from the limiter's start (the BulkWriter's creation). `RateLimiterTests` checks the figures.
package struct RateLimiter: Sendable {
    package let initialCapacity: Int
    package let multiplier: Double
    package let multiplierPeriod: Duration
    package let maximumCapacity: Int
    /// Tokens in the bucket after the last refill.
    package private(set) var availableTokens: Int
    private var lastRefillMilliseconds: Int64 = 0

    /// A full bucket of `initialCapacity` tokens at time zero.
    package init(initialCapacity: Int, multiplier: Double, multiplierPeriod: Duration, maximumCapacity: Int) {
        self.initialCapacity = max(1, initialCapacity)
        self.multiplier = multiplier.isFinite ? max(1, multiplier) : 1
        self.multiplierPeriod = max(.milliseconds(1), multiplierPeriod)
        self.maximumCapacity = max(1, maximumCapacity)
        self.availableTokens = self.initialCapacity
    }

    /// The 500/50/5 limiter of the Node SDK: `initialOpsPerSecond` (500) growing 1.5× every 5 minutes up to
    /// `maxOpsPerSecond` (10,000).
    package static func rampUp(initialOpsPerSecond: Int = 500, maxOpsPerSecond: Int = 10_000) -> RateLimiter {
        RateLimiter(
            initialCapacity: initialOpsPerSecond, multiplier: 1.5, multiplierPeriod: .seconds(300),
            maximumCapacity: maxOpsPerSecond)
    }

    /// Operations per second allowed at `time`.
    package func capacity(at time: Duration) -> Int {
        let steps = max(0, Self.milliseconds(time)) / max(1, Self.milliseconds(multiplierPeriod))
        let grown = (pow(multiplier, Double(steps)) * Double(initialCapacity)).rounded(.down)
        guard grown.isFinite, grown < Double(maximumCapacity) else { return maximumCapacity }
        return Int(grown)
    }

    /// Takes `operations` tokens at `time` if the bucket holds that many.
    /// - Returns: whether the request may go now.
    package mutating func tryMakeRequest(_ operations: Int, at time: Duration) -> Bool {
        refill(at: time)
        guard operations <= availableTokens else { return false }
        availableTokens -= operations
        return true
    }

    /// How long from `time` until `operations` tokens are there: zero when they are now, `nil` when they never can
    /// be (more than the capacity), else `ceil((operations − available) × 1000 / capacity)` milliseconds.
    package mutating func nextRequestDelay(_ operations: Int, at time: Duration) -> Duration? {
        refill(at: time)
        if operations <= availableTokens { return .zero }
        let capacity = capacity(at: time)
        guard operations <= capacity else { return nil }
        let missing = Double(operations - availableTokens)
        return .milliseconds(Int64((missing * 1000 / Double(capacity)).rounded(.up)))
    }

    private mutating func refill(at time: Duration) {
        let now = Self.milliseconds(time)
        guard now > lastRefillMilliseconds else { return }
        let capacity = capacity(at: time)
        let added = (Double(now - lastRefillMilliseconds) * Double(capacity) / 1000).rounded(.down)
        guard added >= 1 else { return }
        availableTokens = Int(min(Double(capacity), Double(availableTokens) + added))
        lastRefillMilliseconds = now
    }

    /// Whole milliseconds of `duration` (rounded down).
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflowAgain ? .max : total
    }
}
