import Synchronization

/// A clock whose sleeps return at once (time jumps forward), like FirestoreTesting's `ImmediateClock`, that
/// also counts its sleeps and records every delay asked for, so a test can check a poller's pacing or a request's
/// retry back-off without waiting.
package final class CountingClock: Clock, Sendable {
    /// A point in the clock's time: the total of all sleeps.
    package struct Instant: InstantProtocol {
        /// Time since the clock was made.
        package var offset: Duration
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Duration.zero)
    private let sleeps = Atomic<Int>(0)
    private let requested = Mutex<[Duration]>([])

    /// A clock at offset zero.
    package init() {}

    /// Every delay asked for, in order.
    package var requestedDelays: [Duration] { requested.withLock { $0 } }

    package var now: Instant { Instant(offset: current.withLock { $0 }) }
    package var minimumResolution: Duration { .nanoseconds(1) }
    /// How many times a poller slept on this clock.
    package var sleepCount: Int { sleeps.load(ordering: .relaxed) }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        current.withLock { now in
            requested.withLock { $0.append(deadline.offset - now) }
            now = max(now, deadline.offset)
        }
        sleeps.add(1, ordering: .relaxed)
        await Task.yield()
    }
}
