import FirestoreFeed
import FirestoreREST

extension WatchCommand {
    /// Connects, then prints every snapshot of the feed until `--count` is reached, the feed fails for good or
    /// `--max-failures` failures come in a row; with `--checkpoint` each snapshot is acknowledged once printed.
    package func run() async throws(CLIError) {
        let watched = try watchedQuery(on: try await connection.makeClient())
        let key = try checkpoint.key(for: watched)
        let printer = WatchPrinter(format: format, verbose: verbose)
        // A reader that goes away (`watch | head -n 2`) ends the watch at once, not at the next change.
        StandardOutputWatch.start()
        try await CLIError.runtimeErrors {
            // Opened before the watch starts: a damaged or newer store is an error at once.
            let store = try await checkpoint.openStore()
            try await failureLimit.watching(report: printer.report) { onEvent in
                if let name = group.name {
                    try await printGroupSnapshots(of: watched, name: name, printer: printer, onEvent: onEvent)
                } else {
                    try await printSnapshots(of: watched, store: store, key: key, printer: printer, onEvent: onEvent)
                }
            }
        }
    }

    /// The query the options make on `firestore`.
    /// - Throws: ``CLIError/usage(_:)`` for a query the client cannot encode for this database.
    private func watchedQuery(on firestore: Firestore) throws(CLIError) -> Query {
        let watched = query.query(on: firestore)
        do {
            _ = try watched.structuredQuery()
        } catch {
            throw .usage(error.message)
        }
        return watched
    }

    /// Prints the feed's snapshots of `watched` (kept in `store` under `key`, when given) until `--count` is
    /// reached, or SIGTERM ends the watch after the snapshot in hand (printed, or run by `--exec`, and
    /// acknowledged).
    private func printSnapshots(
        of watched: Query, store: FeedCheckpointStore?, key: String, printer: WatchPrinter,
        onEvent: @escaping @Sendable (FeedEvent) -> Void
    ) async throws {
        let source = mode.source
        let interval = self.interval
        let count = self.count
        try await untilTerminated {
            let stream =
                if let store {
                    watched.snapshots(source: source, interval: interval, checkpoint: store, key: key, onEvent: onEvent)
                } else {
                    watched.snapshots(source: source, interval: interval, onEvent: onEvent)
                }
            var printed = 0
            for try await snapshot in stream {
                printed += 1
                let number = printed
                // The snapshot in hand is handed over and acknowledged when SIGTERM arrives meanwhile (a failing --exec
                // is not run again).
                try await Self.finishing {
                    try await handOver(snapshot, number: number, printer: printer)
                    // Handed over: finished with, so a restart resumes after it.
                    try await store?.acknowledge(key: key)
                }
                if let count, printed >= count { return }
            }
        }
    }

    /// Prints `snapshot`, or runs `--exec` with its JSON line until a run succeeds.
    private func handOver(_ snapshot: QuerySnapshot, number: Int, printer: WatchPrinter) async throws {
        if let command = exec.command {
            try await exec.deliver(
                OutputFormat.jsonl.snapshotLine(snapshot, number: number), command: command,
                policy: PollingPolicy(interval: interval))
        } else {
            await printer.print(snapshot, number: number)
        }
    }

    /// Runs `work` to its end in a task of its own: a cancellation (SIGTERM) reaches it as a cancellation of its
    /// waits only (`--exec`'s back-off), never of a line being written or a checkpoint being acknowledged.
    static func finishing(_ work: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await work() }
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Runs `body` until it returns or SIGTERM arrives (``TerminateSignal/untilTerminated(interrupt:_:)``).
    func untilTerminated(_ body: @escaping @Sendable () async throws -> Void) async throws {
        try await TerminateSignal.untilTerminated(body)
    }
}
