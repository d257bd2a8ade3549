import FirestoreREST

extension FeedEvent: CustomStringConvertible {
    /// The event as its case with its values, on one line, with no `Optional(...)` around a value that may be
    /// absent: `listenFailed(unavailable: connection reset, retryIn: 0.25 seconds, staleSince:
    /// 2026-01-01T00:00:00Z)`, `resumedFromCheckpoint(key: "orders", readTime: 2026-01-01T00:00:00Z)` (`readTime:
    /// none` for a checkpoint without one).
    public var description: String {
        switch self {
        case .pollFailed(let error, let retryIn): "pollFailed(\(error), retryIn: \(retryIn))"
        case .recovered: "recovered"
        case .fellBackToFullDocuments(let reason): "fellBackToFullDocuments(reason: \(String(reflecting: reason)))"
        case .listenFailed(let error, let retryIn, let staleSince):
            "listenFailed(\(error), retryIn: \(retryIn), staleSince: \(staleSince))"
        case .listenRecovered(let staleSince): "listenRecovered(staleSince: \(staleSince))"
        case .listenProbed(let answeredIn, let billedReads):
            "listenProbed(answeredIn: \(answeredIn), billedReads: \(billedReads))"
        case .listenTargetReset(let reason): "listenTargetReset(reason: \(String(reflecting: reason)))"
        case .fellBackToPolling(let reason): "fellBackToPolling(reason: \(String(reflecting: reason)))"
        case .listenRestored: "listenRestored"
        case .snapshotsCoalesced(let count): "snapshotsCoalesced(count: \(count))"
        case .orderingMismatch(let reason): "orderingMismatch(reason: \(String(reflecting: reason)))"
        case .polled(let statistics): "polled(\(statistics))"
        case .intervalNotKept(let interval, let actual): "intervalNotKept(interval: \(interval), actual: \(actual))"
        case .leaseAcquired(let shard, let generation): "leaseAcquired(shard: \(shard), generation: \(generation))"
        case .leaseStolen(let shard, let generation, let from):
            "leaseStolen(shard: \(shard), generation: \(generation), from: \(String(reflecting: from)))"
        case .leaseRenewedLate(let shard, let generation, let late):
            "leaseRenewedLate(shard: \(shard), generation: \(generation), late: \(late))"
        case .leaseLost(let shard, let generation, let reason):
            "leaseLost(shard: \(shard), generation: \(generation), reason: \(String(reflecting: reason)))"
        case .leaseReleased(let shard, let generation): "leaseReleased(shard: \(shard), generation: \(generation))"
        case .leaseRenewalFailed(let error, let retryIn): "leaseRenewalFailed(\(error), retryIn: \(retryIn))"
        case .resumedFromCheckpoint(let key, let readTime):
            "resumedFromCheckpoint(key: \(String(reflecting: key)), readTime: \(readTime.map { "\($0)" } ?? "none"))"
        case .checkpointNotResumed(let key, let reason):
            "checkpointNotResumed(key: \(String(reflecting: key)), reason: \(String(reflecting: reason)))"
        case .backfillPage(let loaded, let readTime, let complete, let statistics):
            "backfillPage(loaded: \(loaded), readTime: \(readTime), complete: \(complete), statistics: \(statistics))"
        case .backfillRestarted(let reason): "backfillRestarted(reason: \(String(reflecting: reason)))"
        case .publishFailed(let error, let retryIn): "publishFailed(\(error), retryIn: \(retryIn))"
        }
    }
}
