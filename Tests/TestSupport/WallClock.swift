import Foundation
import Synchronization

/// A settable wall clock starting at 2026-01-01T00:00:00Z, for code that reads the time as a `Date` (token expiry).
package final class WallClock: Sendable {
    private let time = Mutex(Date(timeIntervalSince1970: 1_767_225_600))

    /// A clock at 2026-01-01T00:00:00Z.
    package init() {}

    /// The clock's time.
    package var now: Date { time.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    package func advance(by seconds: Double) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
