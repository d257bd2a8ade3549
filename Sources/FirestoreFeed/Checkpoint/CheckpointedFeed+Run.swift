import FirestoreREST

extension CheckpointedFeed {
    /// Hands each snapshot to `handler` and acknowledges it (its checkpoint written) when `handler` returns, until
    /// the calling task is cancelled or the feed ends; then ends the feed (its key released) and returns normally.
    /// The handler's call and the write run to their end when the task is cancelled meanwhile.
    /// - Throws: what `handler` throws (the snapshot is not acknowledged: a next run gets it again); the feed's error.
    func run(_ handler: @escaping @Sendable (QuerySnapshot) async throws -> Void) async throws {
        while !Task.isCancelled {
            let snapshot: QuerySnapshot?
            do {
                snapshot = try await next()
            } catch {
                // `next()` ended the feed; a cancelled wait for the next snapshot is the graceful stop.
                if Task.isCancelled { break }
                throw error
            }
            guard let snapshot else { break }
            do {
                try await CancellationShield.run { try await handler(snapshot) }
            } catch {
                await CancellationShield.run { await self.end() }
                throw error
            }
            try await CancellationShield.run { try await self.acknowledge() }
        }
        await CancellationShield.run { await self.end() }
    }
}
