import FirestoreFeed
import FirestoreREST
import Synchronization

/// What `watch` prints: each snapshot in its format (the first after a restart from a checkpoint marked as
/// resumed), the feed's events on stderr (``Console/report(_:)``) and, with `--verbose`, every poll's
/// statistics, each Listen snapshot's and each liveness probe.
final class WatchPrinter: Sendable {
    let format: OutputFormat
    let verbose: Bool
    /// The polls reported so far.
    private let polls = Mutex(0)
    /// Whether the next snapshot is the first after a restart from a checkpoint.
    private let resumed = Mutex(false)

    init(format: OutputFormat, verbose: Bool) {
        self.format = format
        self.verbose = verbose
    }

    /// The feed's event handler: every event as ``Console/report(_:)`` words it; with `--verbose` also every
    /// poll's statistics, changed or not, and each answered liveness probe.
    func report(_ event: FeedEvent) {
        if verbose, case .polled(let statistics) = event {
            let number = polls.withLock { count in
                count += 1
                return count
            }
            Console.error("poll \(number): \(statistics)")
        }
        if verbose, case .listenProbed(let answeredIn, let billedReads) = event {
            Console.error(
                "note: the Listen stream was quiet; a liveness probe was answered in \(Console.milliseconds(answeredIn)) ms "
                    + "(\(billedReads) billed read\(billedReads == 1 ? "" : "s"))")
        }
        if case .resumedFromCheckpoint = event { resumed.withLock { $0 = true } }
        Console.report(event)
    }

    /// Prints snapshot `number` (from 1) on stdout, and with `--verbose` a Listen snapshot's statistics (a
    /// polled one's came with its poll) on stderr first; returns once it is written.
    func print(_ snapshot: QuerySnapshot, number: Int) async {
        if verbose, let statistics = snapshot.statistics, statistics.mode == nil {
            Console.error("snapshot \(number): \(statistics)")
        }
        let isResumed = resumed.withLock { flag in
            defer { flag = false }
            return flag
        }
        await Console.output(format.snapshotLine(snapshot, number: number, resumed: isResumed))
        // A mistyped project or collection watches nothing rather than failing: say where nothing was found.
        if number == 1, !isResumed, snapshot.isEmpty, let note = ConnectionContext.emptyResultNote {
            Console.error(note)
        }
    }

    /// Prints shard snapshot `number` (from 1) of a feed group on stdout: the snapshot's line with the shard and the
    /// generation, and each change's `updateTime`.
    func print(_ shard: ShardSnapshot, number: Int) async {
        if verbose, let statistics = shard.snapshot.statistics {
            Console.error("shard \(shard.shard) snapshot \(number): \(statistics)")
        }
        await Console.output(format.shardLine(shard, number: number))
    }
}
