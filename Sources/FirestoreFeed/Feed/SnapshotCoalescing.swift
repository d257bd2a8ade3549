import FirestoreREST

/// How a listener that fell behind receives the snapshots it missed (``CoalescingBuffer``): as one snapshot.
enum SnapshotCoalescing {
    /// A query feed's stream for one listener and its buffer: a missed run of snapshots arrives as the newest
    /// snapshot with the changes from the last snapshot the listener received (``query(_:onEvent:)``).
    static func makeQueryStream(
        _ query: Query, onEvent: (@Sendable (FeedEvent) -> Void)?, observation: FeedObservation? = nil
    ) -> (stream: AsyncThrowingStream<QuerySnapshot, any Error>, buffer: CoalescingBuffer<QuerySnapshot>) {
        let buffer = CoalescingBuffer(coalesce: Self.query(query, onEvent: onEvent), onEvent: onEvent)
        // The buffer is terminated when the stream holding it is released.
        let lease = ReleaseAction { buffer.terminate() }
        return (
            AsyncThrowingStream(unfolding: {
                _ = lease
                let snapshot = try await buffer.next()
                if let snapshot { observation?.delivered(snapshot) }
                return snapshot
            }), buffer
        )
    }

    /// The newest snapshot with its changes computed again from `lastDelivered`'s documents (none before the first
    /// snapshot: every document added) by the same rules (``DocumentChangeComputation``, checked by
    /// ``DocumentChangeComputation/checkedChanges(from:to:ordering:)``; a mismatch is reported on `onEvent`).
    /// `nil` when the changes cancel out. Documents, `readTime` and statistics are the newest snapshot's.
    /// - Complexity: O(n) for n documents plus the change computation.
    static func query(_ query: Query, onEvent: (@Sendable (FeedEvent) -> Void)?)
        -> CoalescingBuffer<QuerySnapshot>.Coalesce
    {
        let ordering = DocumentOrdering(query: query)
        return { lastDelivered, newest in
            let old = lastDelivered?.documents.compactMap(\.document) ?? []
            let new = newest.documents.compactMap(\.document)
            let checked = DocumentChangeComputation.checkedChanges(from: old, to: new, ordering: ordering)
            if let mismatch = checked.mismatch { onEvent?(.orderingMismatch(reason: mismatch)) }
            guard !checked.changes.isEmpty || lastDelivered == nil else { return nil }
            return FeedSnapshot.make(
                query: newest.query, documents: newest.documents, changes: checked.changes,
                readTime: newest.readTime, statistics: newest.statistics, resumePoint: newest.resumePoint)
        }
    }

    /// A document feed's missed snapshots: the newest, unless it is the version last delivered (the document was,
    /// say, created and deleted again in between: no change).
    static func document(_ lastDelivered: DocumentSnapshot?, _ newest: DocumentSnapshot) -> DocumentSnapshot? {
        if let lastDelivered, lastDelivered.exists == newest.exists, lastDelivered.updateTime == newest.updateTime {
            return nil
        }
        return newest
    }
}
