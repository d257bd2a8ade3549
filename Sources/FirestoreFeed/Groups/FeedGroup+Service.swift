import FirestoreREST

extension FeedGroup {
    /// Joins the group and calls `handler` with each shard snapshot this member delivers, one at a time, and
    /// acknowledges it when `handler` returns, until the calling task is cancelled or the member ends; then leaves
    /// gracefully (every acknowledged checkpoint written, every lease released, as ``leave()``) and returns normally.
    /// When the task is cancelled, the snapshot in hand is finished first (the handler's call is not cancelled) and
    /// acknowledged.
    /// - Parameter handler: called with each shard snapshot; returning acknowledges it.
    /// - Throws: what `handler` throws (after leaving; the snapshot is not acknowledged, so the next owner of its
    ///   shard delivers it again); the member's error (``snapshots`` lists them).
    public func run(_ handler: @escaping @Sendable (ShardSnapshot) async throws -> Void) async throws {
        let member = self.member
        while !Task.isCancelled {
            let shard: ShardSnapshot?
            do {
                shard = try await member.next()
            } catch {
                // A cancelled wait for the next snapshot is the graceful stop; the member's own error left already.
                if Task.isCancelled { break }
                throw error
            }
            guard let shard else { break }
            do {
                try await CancellationShield.run { try await handler(shard) }
            } catch {
                await CancellationShield.run { await member.leave() }
                throw error
            }
            await CancellationShield.run { await shard.acknowledge() }
        }
        await CancellationShield.run { await member.leave() }
    }

    /// ``run(_:)`` as a ``FeedService``, swift-service-lifecycle's `Service` shape.
    ///
    /// ```swift
    /// let group = FeedGroup(db.collection("orders"), name: "mailer", options: FeedGroupOptions(shards: 8))
    /// let feed = group.service { shard in try await send(shard.snapshot.documentChanges) }
    /// ```
    /// - Parameter handler: called with each shard snapshot; returning acknowledges it.
    public func service(_ handler: @escaping @Sendable (ShardSnapshot) async throws -> Void) -> FeedService {
        FeedService { try await self.run(handler) }
    }
}
