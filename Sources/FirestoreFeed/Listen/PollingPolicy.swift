import FirestoreREST

/// How often a change feed polls, and which errors end it.
public struct PollingPolicy: Sendable, Hashable {
    /// Time between the end of one poll and the start of the next.
    public var interval: Duration

    /// A policy polling every `interval` (at least 10 ms).
    public init(interval: Duration = .seconds(1)) {
        self.interval = max(interval, .milliseconds(10))
    }

    /// Whether an error ends the feed. Errors that retrying cannot fix (`invalidArgument`,
    /// `failedPrecondition` such as a missing index, `permissionDenied`, `unauthenticated`, `notFound`,
    /// `outOfRange`, `unimplemented`, `alreadyExists`) end it; every other error (`unavailable`,
    /// `deadlineExceeded`, `resourceExhausted`, `internal`, `aborted`, `unknown`, a network failure) is
    /// retried at the next interval while the last good snapshot stays.
    public static func isPermanent(_ error: FirestoreError) -> Bool {
        switch error.code {
        case .invalidArgument, .failedPrecondition, .permissionDenied, .unauthenticated, .notFound, .outOfRange,
            .unimplemented, .alreadyExists:
            return true
        default:
            return false
        }
    }
}
