import FirestoreFeed
import FirestoreREST

extension WatchCommand {
    /// `watch --group NAME`: prints every shard snapshot this member delivers, acknowledging each once written,
    /// until `--count` is reached or SIGTERM arrives (the member then releases its leases and the watch exits 0).
    func printGroupSnapshots(
        of watched: Query, name: String, printer: WatchPrinter, onEvent: @escaping @Sendable (FeedEvent) -> Void
    ) async throws {
        let options = group.options(policy: PollingPolicy(interval: interval))
        let feedGroup = FeedGroup(watched, name: name, options: options, onEvent: onEvent)
        let terminated = Task {
            guard await TerminateSignal.wait() != nil else { return }
            await feedGroup.leave()
        }
        defer { terminated.cancel() }
        var printed = 0
        for try await shard in feedGroup.snapshots {
            printed += 1
            await printer.print(shard, number: printed)
            // Written: acknowledged, so the shard's checkpoint moves past it.
            await shard.acknowledge()
            if let count, printed >= count { break }
        }
        await feedGroup.leave()
    }
}
