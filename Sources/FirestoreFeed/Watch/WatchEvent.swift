import FirestoreREST

/// What the watch change aggregator tells the listen stream after a `ListenResponse`.
package enum WatchEvent: Sendable, Equatable {
    /// A consistent snapshot of one target: its documents in query order (limit applied) and the changes from
    /// its previous snapshot (said to be every document added when the previous list was empty or there was none:
    /// ``WatchSnapshotChanges``), at `readTime`.
    case snapshot(targetID: Int32, documents: [Document], changes: WatchSnapshotChanges, readTime: Timestamp?)
    /// The server removed the target (`TargetChange` `REMOVE` that the client did not ask for): its listeners end
    /// with `error`.
    case targetFailed(targetID: Int32, error: FirestoreError)
    /// An existence filter disagreed with the target's view and the bloom filter could not settle it, or the
    /// target buffered more documents than ``WatchChangeAggregator/maxPendingDocuments`` without a snapshot point:
    /// the client must listen to the target again from scratch (no resume token), under a new target ID
    /// (``WatchChangeAggregator/moveTarget(from:to:)``). `reason` says which.
    case targetNeedsRelisten(targetID: Int32, reason: String)
    /// The changes of the target's next snapshot did not rebuild its list and were computed from the list's own
    /// order instead (``DocumentChangeComputation/checkedChanges(from:to:ordering:)``); its listeners hear
    /// `FeedEvent.orderingMismatch(reason:)`. Comes just before that `.snapshot`.
    case orderingMismatch(targetID: Int32, reason: String)
}
