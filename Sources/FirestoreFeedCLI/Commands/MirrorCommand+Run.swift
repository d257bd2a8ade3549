import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

extension MirrorCommand {
    /// Connects, opens the sink and mirrors the query into it until SIGTERM or SIGINT (exit 0 once the transaction in
    /// hand is committed), the feed fails for good, or `--max-failures` failures come in a row.
    package func run() async throws(CLIError) {
        let firestore = try await connection.makeClient()
        let mirrored = query.query(on: firestore)
        do {
            _ = try mirrored.structuredQuery()
        } catch {
            throw .usage(error.message)
        }
        let sink = self.sink
        let pageSize = self.pageSize
        let group = self.group
        let progress = MirrorProgress(verbose: verbose)
        try await CLIError.runtimeErrors {
            // Opened before anything is read: a table of another shape is an error at once.
            let store = MirrorReportingSink(base: try await sink.open(), progress: progress)
            try await failureLimit.watching(report: progress.report) { onEvent in
                if let name = group.name {
                    try await Self.mirrorShards(of: mirrored, group: group, name: name, into: store, onEvent: onEvent)
                } else {
                    try await TerminateSignal.untilTerminated(interrupt: true) {
                        try await mirrored.mirror(into: store, pageSize: pageSize, onEvent: onEvent)
                    }
                }
            }
            progress.finish()
        }
    }

    /// `mirror --group NAME`: this member mirrors the shards it holds into `sink` (``FeedGroup/mirror(into:)``: each
    /// shard snapshot one transaction at its lease's generation, acknowledged once committed) until SIGTERM or SIGINT,
    /// which commit the transaction in hand; then the member releases its leases. A batch the sink refuses for a stale
    /// generation (another member took the shard) stops that shard; the others go on.
    static func mirrorShards(
        of mirrored: Query, group: GroupOptions, name: String, into sink: some FeedSink,
        onEvent: @escaping @Sendable (FeedEvent) -> Void
    ) async throws {
        let feedGroup = FeedGroup(
            mirrored, name: name, options: group.options(policy: PollingPolicy()), onEvent: onEvent)
        try await TerminateSignal.untilTerminated(interrupt: true) {
            try await feedGroup.mirror(into: sink)
        }
    }
}

/// The sink `mirror` writes to, reporting each batch it committed and each it refused for a stale generation
/// (``MirrorProgress``).
struct MirrorReportingSink: FeedSink {
    let base: any FeedSink
    let progress: MirrorProgress

    func resumePoint(shard: Int) async throws -> FeedSinkResumePoint? { try await base.resumePoint(shard: shard) }

    func documents() async throws -> [Document] { try await base.documents() }

    func apply(_ batch: FeedSinkBatch) async throws {
        progress.applying(batch)
        do {
            try await base.apply(batch)
        } catch let refusal as FeedSinkStaleGeneration {
            MirrorProgress.refused(refusal)
            throw refusal
        }
        progress.applied(batch)
    }
}

/// What `mirror` tells on stderr: the feed's events (``Console/report(_:)``); during the backfill, when stderr is a
/// terminal, the documents loaded (``ProgressMeter``); with `--verbose` instead, a line per page and per applied
/// snapshot with its lag behind its read time and the rows per second.
final class MirrorProgress: Sendable {
    private let verbose: Bool
    private let meter: ProgressMeter
    private let started = Mutex<ContinuousClock.Instant?>(nil)
    private let meterEnded = Mutex(false)

    /// With `verbose`, the page lines tell the progress: the meter's line, rewritten in place, would run into them.
    init(verbose: Bool) {
        self.verbose = verbose
        meter = verbose ? ProgressMeter("mirror: backfill", enabled: false) : ProgressMeter("mirror: backfill")
    }

    /// Reports `event`; a backfill page advances the meter (and, with `--verbose`, prints the page).
    @Sendable func report(_ event: FeedEvent) {
        guard case .backfillPage(let loaded, let readTime, let complete, let statistics) = event else {
            if case .resumedFromCheckpoint("mirror", let readTime) = event {
                Console.error(
                    "note: resumed from the table's resume point at \(readTime?.rfc3339 ?? "no read time"): the "
                        + "first snapshot applies only what changed since")
            } else {
                Console.report(event)
            }
            return
        }
        meter.advance(by: statistics.documentsFetched)
        if verbose {
            let elapsed = started.withLock { start in
                let now = ContinuousClock.now
                if start == nil { start = now - statistics.latency }
                return now - (start ?? now)
            }
            Console.error(
                "mirror: backfill page of \(statistics.documentsFetched) documents at \(readTime.rfc3339): "
                    + "\(loaded) loaded, \(Self.rate(loaded, in: elapsed)) rows/s, lag \(Self.lag(readTime)) s, "
                    + "\(statistics.billedReads) billed reads")
        }
        if complete {
            finish()
            Console.error("note: backfill complete at \(readTime.rfc3339) (\(loaded) documents); following changes")
        }
    }

    /// With `--verbose`, a line for a feed group's batch as it goes to the sink (`mirror: applying N changes of shard
    /// S at generation G`): with the `applied` or `refused` line after it, a batch the store kept waiting shows.
    func applying(_ batch: FeedSinkBatch) {
        guard verbose, batch.generation > 0 else { return }
        Console.error(
            "mirror: applying \(batch.changes.count) change\(batch.changes.count == 1 ? "" : "s") of shard "
                + "\(batch.shard) at generation \(batch.generation)")
    }

    /// With `--verbose`, a line for a batch of the Listen tail (a backfill page is told by its event).
    func applied(_ batch: FeedSinkBatch) {
        guard verbose, batch.loadCursor == nil, batch.resumeToken != nil, let readTime = batch.readTime else { return }
        Console.error(
            "mirror: applied \(batch.changes.count) change\(batch.changes.count == 1 ? "" : "s") at "
                + "\(readTime.rfc3339), lag \(Self.lag(readTime)) s")
    }

    /// A line for each batch the sink refused (a group member whose shard another member took, at a higher
    /// generation): every refusal is told, also when the member already stopped the shard for a lease it found lost.
    static func refused(_ refusal: FeedSinkStaleGeneration) {
        Console.error(
            "note: \(refusal.sink) refused a batch of shard \(refusal.shard) at generation \(refusal.generation): it "
                + "holds generation \(refusal.storedGeneration) (nothing of the batch was applied)")
    }

    /// Ends the meter's line, when the mirror ended during the backfill.
    func finish() {
        let first = meterEnded.withLock { ended in
            defer { ended = true }
            return !ended
        }
        if first { meter.finish() }
    }

    /// The seconds from `readTime` to now, to two decimals.
    static func lag(_ readTime: Timestamp) -> Double {
        Console.seconds(Timestamp.now().duration(since: readTime))
    }

    /// `count` per second over `elapsed`, whole.
    static func rate(_ count: Int, in elapsed: Duration) -> Int {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Int((Double(count) / seconds).rounded()) : 0
    }
}
