import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import Foundation

/// `mirror-tail-synthetic` (issue 36): `mirror-tail` at a rate the emulator cannot commit (about 300-490 changes a
/// second here), fed by an in-process Listen server instead (``SyntheticServerTransport`` with a ``SyntheticTail``):
/// no emulator and no network, but from the protobuf bytes of each message onward the client's path is the real one
/// (decoding, the Listen target's view, its snapshots, `mirror(into:)`, the store's transactions).
///
/// `collection.mirror(into:)` into a fresh SQLite mirror (and PostgreSQL mirror, with a server) loads `documents`
/// documents in one backfill page (the synthetic runQuery answers them all), starts its Listen target (its first
/// snapshot: the same documents), and once the store holds that snapshot's resume token the server sends `rate`
/// changes a second for `seconds` in batches of `--tail-batch` (each batch one snapshot). A sink wrapped around the
/// mirror (``LagRecorder``) notes, for each change, the time its batch committed in the store minus the change's
/// `updateTime` (its batch's scheduled time on this process's wall clock): commit-to-row lag, p50 and p99. Also the
/// rows a second applied, the backlog when the schedule ended (changes due but not yet in the store), and how long
/// the store took to hold them all.
enum MirrorSyntheticTailWorkload {
    /// Runs the tail into SQLite, then into PostgreSQL when there is a server (``MirrorSupport/postgres(workload:)``):
    /// `rate` changes a second for `seconds` over `documents` documents.
    static func run(rate: Int, seconds: Double, documents: Int) throws {
        let folder = try MirrorSupport.temporaryDirectory("mirror-tail-synthetic")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try steady(
            "mirror-tail-synthetic-sqlite", rate: rate, seconds: seconds, documents: documents,
            open: { try await SQLiteMirror(path: "\(folder)/tail.sqlite") })
        if let url = MirrorSupport.postgres(workload: "mirror-tail-synthetic") {
            let drop =
                "DROP TABLE IF EXISTS bench_synthetic_tail, bench_synthetic_tail_tombstones, bench_synthetic_tail_resume"
            let psql = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", drop]
            try MirrorSupport.check("psql", psql)
            try steady(
                "mirror-tail-synthetic-postgres", rate: rate, seconds: seconds, documents: documents,
                open: { try await PostgresMirror(url: url, table: "bench_synthetic_tail") })
            try MirrorSupport.check("psql", psql)
        }
    }

    /// What one run saw, besides the recorder's state.
    struct Run: Sendable {
        /// Changes due by the schedule's end but not yet in the store then.
        var backlog: Int
        /// From the schedule's end to the last change's commit in the store (0 when none was left).
        var drain: Double
        /// From ``SyntheticTail/begin()`` to the schedule's end.
        var span: Double
    }

    /// One run into the store `open` makes, printed as `workload`.
    static func steady<Sink: FeedSink>(
        _ workload: String, rate: Int, seconds: Double, documents: Int,
        open: @escaping @Sendable () async throws -> Sink
    ) throws {
        let tail = SyntheticTail(rate: rate, batchSize: tailBatch, seconds: seconds, documents: documents)
        let server = SyntheticServerTransport(count: documents, tail: tail)
        let db = try Firestore.emulator(
            host: "127.0.0.1:9", projectID: SyntheticServerTransport.project, transport: server
        )
        .using(protocol: .grpc)
        let collection = db.collection(SyntheticServerTransport.collection)
        let (run, state) = try blocking { () -> (Run, LagRecorder<Sink>.State) in
            let recorder = LagRecorder(try await open())
            // One backfill page (the synthetic runQuery answers every document whatever the page's cursor).
            let mirror = Task { try await collection.mirror(into: recorder, pageSize: documents + 1) }
            defer { mirror.cancel() }
            let deadline = ContinuousClock.now + .seconds(120)
            while !recorder.state.withLock({ $0.listening }) {
                guard ContinuousClock.now < deadline else {
                    throw BenchmarkError(message: "\(workload): the mirror never reached its Listen tail")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let start = tail.begin()
            let end = start + tail.period * tail.batches
            try await Task.sleep(until: end, clock: .continuous)
            let backlog = tail.changes - recorder.state.withLock { $0.seen }
            // Until every change is applied, or nothing more comes for 10 s.
            var seen = recorder.state.withLock { $0.seen }
            var quiet = ContinuousClock.now
            while seen < tail.changes, ContinuousClock.now - quiet < .seconds(10) {
                try await Task.sleep(for: .milliseconds(20))
                let now = recorder.state.withLock { $0.seen }
                if now != seen { (seen, quiet) = (now, ContinuousClock.now) }
            }
            let drained = backlog > 0 ? ListenSupport.seconds(quiet - end) : 0
            mirror.cancel()
            try await mirror.value
            let run = Run(backlog: backlog, drain: max(drained, 0), span: ListenSupport.seconds(end - start))
            return (run, recorder.state.withLock { $0 })
        }
        report(workload, tail: tail, run: run, state: state)
    }

    /// Prints the run's line, its JSON line and whether the mirror kept up.
    static func report<Sink: FeedSink>(
        _ workload: String, tail: SyntheticTail, run: Run, state: LagRecorder<Sink>.State
    ) {
        let sent = tail.state.withLock { $0 }
        let p = ListenSupport.percentile
        let ms = ListenSupport.ms
        var applySpan = 0.0
        if let first = state.firstApplied, let last = state.lastApplied { applySpan = last.timeIntervalSince(first) }
        let appliedRate = applySpan > 0 ? Double(state.seen) / applySpan : 0
        let sentRate = run.span > 0 ? Double(sent.sent) / run.span : 0
        // Kept up: the store held at most one second of changes behind the schedule at its end, and took them all.
        let keptUp = run.backlog <= tail.rate && state.seen >= tail.changes
        print(
            "\(workload) n=\(tail.changes)  server \(String(format: "%.0f", sentRate)) changes/s (asked \(tail.rate), "
                + "\(sent.lateBatches) of \(tail.batches) batches sent late); applied \(state.seen) at "
                + "\(String(format: "%.0f", appliedRate)) rows/s in \(state.batches) batches; commit-to-row lag p50 "
                + "\(ms(p(state.lags, 0.5)))  p99 \(ms(p(state.lags, 0.99)))  max \(ms(state.lags.max() ?? 0)); "
                + "backlog at the schedule's end \(run.backlog) (drained in \(ms(run.drain))): "
                + (keptUp ? "kept up" : "did NOT keep up"))
        let name = JSONValue.string(workload).serializedString()
        print(
            #"{"workload":\#(name),"n":\#(tail.changes),"asked_per_s":\#(tail.rate),"sent_per_s":\#(sentRate),"#
                + #""late_batches":\#(sent.lateBatches),"applied":\#(state.seen),"applied_per_s":\#(appliedRate),"#
                + #""batches":\#(state.batches),"lag_p50_s":\#(p(state.lags, 0.5)),"lag_p99_s":\#(p(state.lags, 0.99)),"#
                + #""lag_max_s":\#(state.lags.max() ?? 0),"backlog_at_end":\#(run.backlog),"drain_s":\#(run.drain),"#
                + #""kept_up":\#(keptUp)}"#)
        if state.seen < tail.changes {
            print(
                "\(workload): \(tail.changes - state.seen) changes not seen as their own version (coalesced with a "
                    + "later version of the same document in one snapshot, or not applied within 10 s)")
        }
    }
}
