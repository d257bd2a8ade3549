/// Elapsed time and sleeping on any `Clock<Duration>`, measured from when this was made: lets a type take an
/// injected clock as `any Clock<Duration>` and still read offsets and sleep to them (``BulkWriter``'s throttle and
/// back-off; FirestoreTesting's recording and replaying transports, as its `Stopwatch`).
package struct ElapsedClock: Sendable {
    private let read: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// A clock whose offsets count from now on `clock`.
    package init(_ clock: any Clock<Duration>) {
        self.init(opened: clock)
    }

    private init<C: Clock<Duration>>(opened clock: C) {
        let origin = clock.now
        read = { origin.duration(to: clock.now) }
        sleeper = { target in try await clock.sleep(until: origin.advanced(by: target), tolerance: nil) }
    }

    /// Time since this was made.
    package var elapsed: Duration { read() }

    /// Sleeps for `duration` on the clock.
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    package func sleep(for duration: Duration) async throws {
        try await sleeper(elapsed + duration)
    }

    /// Sleeps until `target` after this was made (returns at once when that has passed).
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    package func sleep(untilElapsed target: Duration) async throws {
        if target <= elapsed { return }
        try await sleeper(target)
    }
}
