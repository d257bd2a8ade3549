import FirestoreFeed
import FirestoreREST

extension FeedGroup {
    /// Publishes the changes of the shards this member holds to `topic` until the calling task is cancelled (the
    /// snapshot in hand is published first; then the member leaves gracefully and the call returns normally).
    ///
    /// Each ``ShardSnapshot``'s changes become messages carrying its `shard` and `generation`
    /// (``PubSubChangeMessage``), published before the snapshot is acknowledged (the group's checkpoint moves only
    /// after every message is accepted). The fence is checked right before each publish
    /// (``ShardSnapshot/fenceStands()``): a snapshot of a shard this member no longer holds at its generation is not
    /// published (its next owner delivers it). Pub/Sub cannot refuse a stale writer, so the fence also travels to the
    /// consumer: a member paused between the check and the publish still publishes with its old generation, and the
    /// consumer's rule (``PubSubChangeMessage``) makes such a message a no-op. A member handing a
    /// shard over for a rebalance releases it only after the snapshot in hand is published and acknowledged.
    ///
    /// A group writes a shard's checkpoint at lease renewals, so a member killed after publishing has published
    /// documents the shard's next owner, resuming from the older checkpoint, never sees. Before each publish the
    /// names the member published since the stored checkpoint are written beside the shard's lease
    /// (`{root}/{group}/shards/{n}/publishPending/…`: one billed write per snapshot that adds or changes documents);
    /// the first snapshot of a shard's feed reads them (one billed read or more) and publishes a removal, at its read
    /// time, of each one the result lacks: a document added and deleted between the checkpoint and the takeover still
    /// gets its removal.
    /// - Parameters:
    ///   - topic: the topic; `publisher`: the Pub/Sub client.
    ///   - onPublished: called after each shard snapshot's messages are accepted, with it and the number of messages.
    /// - Throws: the publisher's error (the snapshot not acknowledged: the next owner of its shard publishes it
    ///   again); the member's error.
    public func publish(
        to topic: PubSubTopic, with publisher: PubSubPublisher,
        onPublished: (@Sendable (ShardSnapshot, Int) -> Void)? = nil
    ) async throws {
        let pending = ShardPublishPendingNames()
        let retries = FeedEvent.publishRetries(to: onEvent)
        try await run { shard in
            guard await shard.fenceStands() else { return }
            var messages = try PubSubChangeMessage.messages(
                for: shard.snapshot, shard: shard.shard, generation: shard.generation)
            messages += try await pending.beforePublishing(shard)
            if !messages.isEmpty {
                _ = try await publisher.publish(
                    messages, to: topic,
                    onRetry: retries)
            }
            onPublished?(shard, messages.count)
        }
    }
}
