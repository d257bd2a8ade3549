import Synchronization

/// A clock whose sleeps return at once: sleeping moves its time forward to the deadline instead of waiting.
/// Inject it where time-based code should run as fast as possible and still see time pass in order, e.g. a
/// change feed replayed from a cassette (FirestoreFeed's `PollerPool(clock: ImmediateClock())` polling over a
/// ``ReplayTransport``), or a ``ReplayTransport`` paced at recorded speed in a test.
///
/// Each sleep checks for cancellation and yields once, so a loop that sleeps on this clock lets other tasks
/// run. Safe to share between tasks.
public final class ImmediateClock: Clock, Sendable {
    /// A point in this clock's time: the total of all sleeps since the clock was made.
    public struct Instant: InstantProtocol {
        /// Time since the clock was made.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Duration.zero)

    /// A clock at offset zero.
    public init() {}

    /// The current time: the latest deadline slept to.
    public var now: Instant { Instant(offset: current.withLock { $0 }) }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves the time forward to `deadline` (never backward) and returns after one `Task.yield()`.
    /// - Throws: `CancellationError` when the calling task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = max($0, deadline.offset) }
        await Task.yield()
    }
}
