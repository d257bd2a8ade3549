/// Elapsed time and sleeping on any `Clock<Duration>`, measured from when this was made: lets ``BulkWriter`` take an
/// injected clock as `any Clock<Duration>` and still read offsets for its ``RateLimiter``.
struct ElapsedClock: Sendable {
    private let read: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    init(_ clock: any Clock<Duration>) {
        self.init(opened: clock)
    }

    private init<C: Clock<Duration>>(opened clock: C) {
        let origin = clock.now
        read = { origin.duration(to: clock.now) }
        sleeper = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }

    /// Time since this was made.
    var elapsed: Duration { read() }

    /// Sleeps for `duration` on the clock.
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    func sleep(for duration: Duration) async throws {
        try await sleeper(duration)
    }
}
