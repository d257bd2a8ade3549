import FirestoreFeed
import FirestoreREST
import Synchronization

/// Line output to stdout and stderr, written at once (never buffered) so pipes see each line as it is printed.
///
/// Every line goes through ``ConsoleWriter``'s thread, in the order printed, so a slow reader never blocks a
/// thread of the cooperative pool. A failed write to stdout ends the process (``OutputFailure``: never a
/// trap); a failed write to stderr loses that line only.
package enum Console {
    /// Writes `line` and a newline to stdout; returns once it is written.
    package static func output(_ line: String) async {
        await ConsoleWriter.shared.write(Array((line + "\n").utf8), to: .output)
    }

    /// Writes each of `lines` and a newline to stdout, in order, as few writes of up to ``batchBytes`` each
    /// (``OutputLineBatch``); returns once all are written. For output that is all at hand (a query's documents): one
    /// write and one hand-over to the writer's thread per batch instead of per line.
    /// - Complexity: O(total bytes); holds at most one batch beside `lines`.
    package static func output(lines: some Sequence<String>) async {
        var batch = OutputLineBatch(limit: batchBytes)
        for line in lines {
            if let full = batch.add(line) { await ConsoleWriter.shared.write(full, to: .output) }
        }
        if let last = batch.finish() { await ConsoleWriter.shared.write(last, to: .output) }
    }

    /// The size of one write of ``output(lines:)``: 64 KiB (a pipe's default capacity on Linux).
    package static let batchBytes = 65_536

    /// Hands `line` and a newline to the writer for stderr without waiting (the feed calls ``report(_:)`` from
    /// its tasks). At most ``ConsoleWriter/postedLimit`` such lines wait; more are dropped and counted.
    package static func error(_ line: String) {
        ConsoleWriter.shared.post(Array((line + "\n").utf8), to: .error)
    }

    /// Returns once every line printed before is written: call it before `exit`.
    package static func drain() async {
        await ConsoleWriter.shared.drain()
    }

    /// Rewrites the current line of stderr (a terminal: ``ProgressMeter``) with `text`: a carriage return, the
    /// text, an erase to the end of the line, and with `ending` a newline. Posted like ``error(_:)``.
    package static func progress(_ text: String, ending: Bool = false) {
        ConsoleWriter.shared.post(Array(("\r" + text + "\u{1B}[K" + (ending ? "\n" : "")).utf8), to: .error)
    }

    /// Whether a feed failure's hint (``ConnectionContext/hint(for:in:)``: how to start the emulator) was printed.
    private static let hinted = Mutex(false)

    /// The hint for `failure`, once per process: a watch retrying a dead emulator port says how to start one at its
    /// first failure, not only when `--max-failures` ends it.
    static func hintOnce(for failure: FirestoreError) {
        guard let hint = ConnectionContext.hint(for: failure),
            hinted.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        error(hint)
    }

    /// A feed event as one warning line on stderr (posted: see ``error(_:)``).
    package static func report(_ event: FeedEvent) {
        switch event {
        case .pollFailed(let failure, let retryIn):
            let seconds = Double(retryIn.components.seconds) + Double(retryIn.components.attoseconds) / 1e18
            error(
                "warning: poll failed (the feed keeps its last good state), retrying in "
                    + "\((seconds * 100).rounded() / 100) s: \(failure)")
            hintOnce(for: failure)
        case .recovered:
            error("note: polling recovered")
        case .listenRecovered(let staleSince):
            error(
                "note: the Listen stream recovered; the feed is current again (it was stale since \(staleSince.rfc3339), "
                    + "\(seconds(since: staleSince)) s)")
        case .listenProbed:
            break
        case .listenRestored:
            error("note: the Listen stream works again; the feed listens instead of polling")
        case .listenTargetReset(let reason):
            error("note: \(reason)")
        case .fellBackToFullDocuments(let reason):
            error("note: keys mode refused, polling whole documents (\(reason))")
        case .listenFailed(let failure, let retryIn, let staleSince):
            error(
                "warning: the Listen stream failed (the feed keeps its last good state, stale since "
                    + "\(staleSince.rfc3339)), reconnecting in \(seconds(retryIn)) s: \(failure)")
            hintOnce(for: failure)
        case .fellBackToPolling(let reason):
            error("note: the Listen stream cannot be used, polling in keys mode (\(reason))")
        case .snapshotsCoalesced(let count):
            error("note: output fell behind; \(count) snapshots printed as one (changes since the last one printed)")
        case .orderingMismatch(let reason):
            error("warning: the client's ordering disagreed with the server's, changes follow the server's (\(reason))")
        case .polled:
            break
        case .intervalNotKept(let interval, let actual):
            error(
                "warning: polling cannot keep its interval of \(seconds(interval)) s: the real interval is "
                    + "\(seconds(actual)) s (polls take longer than the interval)")
        case .resumedFromCheckpoint(let key, let readTime):
            error(
                "note: resumed from the checkpoint of key \"\(key)\" at \(readTime?.rfc3339 ?? "no read time"): "
                    + "the first snapshot lists only what changed since")
        case .checkpointNotResumed(let key, let reason):
            error("warning: could not resume from the checkpoint of key \"\(key)\", starting over (\(reason))")
        case .leaseAcquired(let shard, let generation):
            error("note: took the lease of shard \(shard) (generation \(generation))")
        case .leaseStolen(let shard, let generation, let from):
            error("note: took the expired lease of shard \(shard) from member \(from) (generation \(generation))")
        case .leaseRenewedLate(let shard, let generation, let late):
            error(
                "warning: renewed the lease of shard \(shard) (generation \(generation)) \(seconds(late)) s after its "
                    + "fence fell; delivering it again from its checkpoint")
        case .leaseLost(let shard, let generation, let reason):
            error("warning: stopped delivering shard \(shard) (generation \(generation)): \(reason)")
        case .leaseReleased(let shard, let generation):
            error("note: released the lease of shard \(shard) (generation \(generation))")
        case .leaseRenewalFailed(let failure, let retryIn):
            error("warning: could not renew the group's leases, retrying in \(seconds(retryIn)) s: \(failure)")
        case .backfillPage:
            break
        case .backfillRestarted(let reason):
            error("warning: the backfill's read time is too old for the server, loading again at a new one (\(reason))")
        case .publishFailed(let failure, let retryIn):
            error(
                "warning: publishing failed (the snapshot is not checkpointed until it is published), retrying in "
                    + "\(seconds(retryIn)) s: \(failure)")
        }
    }

    /// `duration` in whole milliseconds.
    package static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// The seconds from `instant` to now, to two decimals (0 when `instant` is in the future).
    private static func seconds(since instant: Timestamp) -> Double {
        let now = Timestamp.now()
        let elapsed = Double(now.seconds - instant.seconds) + Double(now.nanos - instant.nanos) / 1e9
        return max(0, (elapsed * 100).rounded() / 100)
    }

    /// `duration` in seconds, to two decimals.
    static func seconds(_ duration: Duration) -> Double {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return (value * 100).rounded() / 100
    }
}
