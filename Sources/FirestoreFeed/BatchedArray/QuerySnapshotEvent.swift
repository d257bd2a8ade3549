import FirestoreREST

/// One event of a ``QuerySnapshotSource`` listen.
public enum QuerySnapshotEvent: Sendable {
    /// The whole current result of the query (the first one of a listen holds everything).
    case snapshot(QuerySnapshot)
    /// An error. The listen goes on unless the stream finishes after it.
    case failure(any Error)
    /// The source works again after failures but has no new result to report (a snapshot means the same).
    case recovered
}

extension QuerySnapshotEvent {
    /// The events of a change feed: each snapshot, each transient failure the feed reports through its events
    /// (`pollFailed`, `listenFailed`), recovery, and the error that ends the feed as the last event. Fallbacks are
    /// not failures (the snapshots go on). `feed` is called once, with the event handler to pass on.
    ///
    /// Bounded however slow the consumer is: the next snapshot is read from the feed only once the consumer has
    /// taken the last one (meanwhile the feed folds what the consumer misses into one snapshot:
    /// `FeedEvent.snapshotsCoalesced(count:)`), and a failure or recovery not yet taken is replaced by a newer one
    /// (``HandOffQueue``).
    static func relay(
        _ feed: @escaping (@escaping @Sendable (FeedEvent) -> Void) -> AsyncThrowingStream<QuerySnapshot, any Error>
    ) -> AsyncStream<QuerySnapshotEvent> {
        let queue = HandOffQueue<QuerySnapshotEvent>()
        let snapshots = feed { event in
            switch event {
            case .pollFailed(let error, _), .listenFailed(let error, _, _):
                queue.post(.failure(error), replacing: \.isFailure)
            case .recovered, .listenRecovered: queue.post(.recovered, replacing: \.isRecovered)
            case .fellBackToFullDocuments, .fellBackToPolling, .snapshotsCoalesced, .orderingMismatch, .polled,
                .intervalNotKept, .resumedFromCheckpoint, .checkpointNotResumed, .listenProbed, .listenTargetReset,
                .listenRestored,
                .leaseAcquired, .leaseStolen, .leaseRenewedLate, .leaseLost, .leaseReleased, .leaseRenewalFailed,
                .backfillPage, .backfillRestarted, .publishFailed:
                break
            }
        }
        let task = Task {
            do {
                for try await snapshot in snapshots { await queue.put(.snapshot(snapshot)) }
            } catch {
                queue.post(.failure(error))
            }
            queue.finish()
        }
        // The reading task stops when the stream is released (dropped without being iterated to the end).
        let lease = ReleaseAction { task.cancel() }
        return AsyncStream(
            unfolding: {
                _ = lease
                return await queue.next()
            }, onCancel: { task.cancel() })
    }

    private var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }

    private var isRecovered: Bool {
        if case .recovered = self { return true }
        return false
    }
}
