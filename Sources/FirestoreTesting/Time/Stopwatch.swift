/// Elapsed time and sleeping on any `Clock<Duration>`, measured from when the stopwatch was made. Lets the
/// recording and replaying transports take an injected clock as `any Clock<Duration>`.
struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    init(_ clock: any Clock<Duration>) {
        self.init(opened: clock)
    }

    private init<C: Clock<Duration>>(opened clock: C) {
        let origin = clock.now
        read = { origin.duration(to: clock.now) }
        sleeper = { target in try await clock.sleep(until: origin.advanced(by: target), tolerance: nil) }
    }

    /// Time since the stopwatch was made.
    var elapsed: Duration { read() }

    /// Sleeps until `target` after the stopwatch was made (returns at once when that has passed).
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    func sleep(untilElapsed target: Duration) async throws {
        if target <= elapsed { return }
        try await sleeper(target)
    }
}

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
