import FirestoreTesting
import Foundation
import Synchronization

/// A clock that moves only when a test calls ``advance(by:)``: sleepers wait until then, so a test can count
/// exactly what happens per interval.
package final class ManualClock: Clock, Sendable {
    package typealias Instant = ImmediateClock.Instant

    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Duration.zero
        var nextID = 0
        var sleepers: [Sleeper] = []
    }

    private let state = Mutex(State())

    /// A clock at offset zero.
    package init() {}

    package var now: Instant { Instant(offset: state.withLock { $0.now }) }
    package var minimumResolution: Duration { .nanoseconds(1) }
    /// How many tasks are asleep on this clock.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline.offset <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline.offset, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    package func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let due = state.sleepers.filter { $0.deadline <= state.now }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (really, polling every millisecond) until `count` tasks sleep on this clock; true when they do.
    ///
    /// The wait lasts as long as the machine needs, up to `seconds` (60 s), a guard against a hang only: a caller
    /// checks the answer (`try #require`), because time moved by ``advance(by:)`` before the sleepers arrived is
    /// lost to them, and the test would go on asserting what the clock did not do.
    package func waitForSleepers(_ count: Int, seconds: Int = 60) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while sleeperCount < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return sleeperCount >= count
    }
}
