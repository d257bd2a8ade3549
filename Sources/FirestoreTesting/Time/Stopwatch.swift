import FirestoreREST

/// Elapsed time and sleeping on any `Clock<Duration>`, from when it was made: FirestoreREST's `ElapsedClock`,
/// under the name the recording and replaying transports use.
typealias Stopwatch = ElapsedClock

extension Stopwatch {
    /// `duration` in seconds as a `Double`.
    static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// `duration` in seconds for a message: `10`, `0.25`.
    static func text(_ duration: Duration) -> String {
        let value = seconds(duration)
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// `seconds` as a duration, to the nanosecond; negative and non-finite values give zero, values above
    /// 10^9 seconds are cut to it.
    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .nanoseconds(Int64(min(seconds, 1e9) * 1e9))
    }
}
