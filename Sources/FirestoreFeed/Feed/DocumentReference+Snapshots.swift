import FirestoreREST

extension DocumentReference {
    /// A change feed of this one document, as the SDKs' document listeners give: a `DocumentSnapshot` at once
    /// (`DocumentSnapshot.exists` is `false` while there is no such document), then one each time the document
    /// is created, updated (its `updateTime` moved) or deleted.
    ///
    /// The feed is the query "documents of the parent collection whose `__name__` is this document"
    /// (`FieldPath.documentID`, `EQUAL`), so it has every property of
    /// `QueryRepresentable.snapshots(source:interval:policy:onEvent:)`: one Listen target
    /// shared by every listener of the document (billed: the document each time it is delivered), the same
    /// reconnection, the same fallback to polling (one read per poll). A consumer that falls behind gets the newest
    /// version of the document when it asks again (`FeedEvent.snapshotsCoalesced(count:)`; nothing when that is
    /// the version it last received), never a backlog.
    ///
    /// - Parameters:
    ///   - source: ``FeedSource/listen`` (default) or ``FeedSource/poll(_:)`` in a `PollMode`.
    ///   - interval: time between polls, when polling.
    ///   - policy: the full polling policy; its error back-off also paces reconnection.
    ///   - onEvent: called with feed events (failures, recovery, fallbacks).
    public func snapshots(
        source: FeedSource = .listen, interval: Duration = .seconds(1), policy: PollingPolicy? = nil,
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) -> AsyncThrowingStream<DocumentSnapshot, any Error> {
        let reference = self
        let (feed, inner) = parent.whereField(FieldPath.documentID, .equal, documentID)
            .snapshotFeed(source: source, interval: interval, policy: policy, onEvent: onEvent)
        let (stream, buffer) = CoalescingBuffer<DocumentSnapshot>.makeStream(
            coalesce: SnapshotCoalescing.document, onEvent: onEvent)
        let forwarding = Task {
            do {
                // The query feed is read only when this feed's consumer asks, so a consumer that stops asking
                // stops the polling (or idles the Listen target) behind it too.
                _ = try await FeedRelay.pump(feed, into: buffer) { snapshot in
                    DocumentSnapshot(reference: reference, document: snapshot.documents.first?.document)
                }
                buffer.finish()
            } catch {
                buffer.finish(throwing: error)
            }
        }
        // The query feed's listener leaves with this one, at once (its target or poller goes in order).
        buffer.setOnTermination {
            inner.terminate()
            forwarding.cancel()
        }
        return stream
    }

    /// Calls `listener` with each snapshot of this document's feed (see
    /// ``snapshots(source:interval:policy:onEvent:)``), or once with the error that ended it, as the SDKs'
    /// `addSnapshotListener` does. Call ``ListenerRegistration/remove()`` to stop.
    /// - Parameter listener: receives `(snapshot, nil)` for each snapshot and `(nil, error)` once when the feed
    ///   ends with an error. Calls are made one at a time, in order.
    @discardableResult
    public func addSnapshotListener(
        source: FeedSource = .listen, interval: Duration = .seconds(1),
        _ listener: @escaping @Sendable (DocumentSnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        ListenerRegistration.start(listener) { onEvent in
            snapshots(source: source, interval: interval, onEvent: onEvent)
        }
    }
}
