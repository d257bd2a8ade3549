import FirestoreFeed
import FirestoreREST

extension WatchCommand {
    /// `watch --group NAME`: prints (or runs `--exec` with) every shard snapshot this member delivers,
    /// acknowledging each once handed over, until `--count` is reached or SIGTERM arrives; the member then writes
    /// its checkpoints and releases its leases, and the watch exits 0.
    func printGroupSnapshots(
        of watched: Query, name: String, printer: WatchPrinter, onEvent: @escaping @Sendable (FeedEvent) -> Void
    ) async throws {
        let options = group.options(policy: PollingPolicy(interval: interval))
        let feedGroup = FeedGroup(watched, name: name, options: options, onEvent: onEvent)
        let count = self.count
        let exec = self.exec
        let policy = PollingPolicy(interval: interval)
        do {
            try await untilTerminated {
                var printed = 0
                for try await shard in feedGroup.snapshots {
                    printed += 1
                    let number = printed
                    // The snapshot in hand is handed over and acknowledged when SIGTERM arrives meanwhile (a failing --exec
                    // is not run again).
                    try await Self.finishing {
                        if let command = exec.command {
                            // The generation travels with the effect (the JSON line and the environment), and a
                            // snapshot whose fence fell is left unacknowledged to the shard's next owner.
                            let delivered = try await exec.deliver(
                                OutputFormat.jsonl.shardLine(shard, number: number), command: command, policy: policy,
                                shard: shard, group: name)
                            if delivered { await shard.acknowledge() }
                        } else {
                            await printer.print(shard, number: number)
                            await shard.acknowledge()
                        }
                    }
                    if let count, printed >= count { return }
                }
            }
        } catch {
            await Task { await feedGroup.leave() }.value
            throw error
        }
        // Not cancelled: the leases are released and the checkpoints written before the watch exits.
        await Task { await feedGroup.leave() }.value
    }
}
