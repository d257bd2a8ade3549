import FirestoreFeed
import FirestoreREST
import Synchronization

extension QueryRepresentable {
    /// Publishes the query's changes to `topic`, one message per document change (``PubSubChangeMessage``), until
    /// the calling task is cancelled (the snapshot in hand is published and checkpointed first; then the call
    /// returns normally).
    ///
    /// A checkpointed feed (``FeedCheckpointStore``, `key`): each snapshot's messages are published, and only once
    /// the server has accepted every one is the snapshot acknowledged and its checkpoint written. A process killed at
    /// any moment starts again after the last written checkpoint, so a snapshot whose publish was under way is
    /// published again: its messages are duplicates with the same (`name`, `updateTime`), a no-op under the
    /// consumer's rule. A publish that fails for good (after ``PubSubPublisher/retry``) ends the call with its error
    /// and skips nothing: the snapshot is not acknowledged.
    ///
    /// A document an earlier run published as added in a snapshot it never acknowledged, and deleted before this run,
    /// gets a removal at this run's first snapshot (the names such a snapshot published are kept beside the store
    /// until then: `STORE-publish-pending-…`).
    ///
    /// One document's changes are published one snapshot after another, each after the one before was accepted, so
    /// an ordered subscription delivers them in update-time order (the first run's first snapshot lists every
    /// document as `added`).
    /// - Parameters:
    ///   - topic: the topic (it must exist: ``PubSubPublisher/createTopic(_:)``).
    ///   - publisher: the Pub/Sub client.
    ///   - source: Listen (default) or a polling mode.
    ///   - interval: the polling interval of a polling source.
    ///   - store: the checkpoint store; `key`: the feed's key in it.
    ///   - onEvent: feed events.
    ///   - onPublished: called after each snapshot's messages are accepted and before its checkpoint is written, with
    ///     the snapshot and the number of messages.
    /// - Throws: the publisher's error (nothing acknowledged); the feed's or the checkpoint store's error.
    public func publish(
        to topic: PubSubTopic, with publisher: PubSubPublisher, source: FeedSource = .listen,
        interval: Duration = .seconds(1), checkpoint store: FeedCheckpointStore, key: String,
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil,
        onPublished: (@Sendable (QuerySnapshot, Int) -> Void)? = nil
    ) async throws {
        let pending = PublishPendingNames(storePath: store.path, key: key)
        let earlier = try await pending.read()
        let first = FirstSnapshot()
        // Observed (logged, counted as firestore_pubsub_publish_retries_total), then told to `onEvent`.
        let retries = FeedEvent.publishRetries(
            to: FeedObservation(query, source: source.name).events(onEvent))
        try await service(source: source, interval: interval, checkpoint: store, key: key, onEvent: onEvent) {
            snapshot in
            var messages = try PubSubChangeMessage.messages(for: snapshot)
            var names = Set(
                snapshot.documentChanges.filter { $0.type != .removed }.compactMap { $0.document.document?.name })
            if first.take() {
                // What an earlier run may have published of a snapshot it never acknowledged: kept pending until
                // this snapshot is acknowledged, and removed now where the result no longer holds it.
                messages += PublishPendingNames.removals(of: earlier, absentFrom: snapshot)
                names.formUnion(earlier)
            }
            try await pending.write(names)
            if !messages.isEmpty {
                _ = try await publisher.publish(
                    messages, to: topic, onRetry: retries)
            }
            onPublished?(snapshot, messages.count)
        }
        .run()
    }
}

/// Whether the snapshot in hand is the feed's first.
private final class FirstSnapshot: Sendable {
    private let state = Mutex(true)

    /// `true` the first time only.
    func take() -> Bool {
        state.withLock { first in
            defer { first = false }
            return first
        }
    }
}
