import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import Foundation
import Synchronization

/// `mirror-backfill` and `mirror-tail` (issue 36): `mirror(into:)` end to end on the emulator, into SQLite and into
/// PostgreSQL.
///
/// - `mirror-backfill`: `documents` documents (~1 KB, 10 fields, as `mirror-load`'s) seeded with a BulkWriter, then
///   `collection.mirror(into:)` into a fresh mirror, timed from the call to the event of its last backfill page
///   (`FeedEvent.backfillPage` with `complete`: every page read at one read time and committed), against one
///   `getDocuments()` of the same collection (the read alone, no store) in the same run, interleaved, `repeats`
///   times each. Prints the billed reads of the load (the pages' `PollStatistics.billedReads`).
/// - `mirror-tail`: a mirror of a collection of `documents` documents past its backfill and its Listen's first
///   snapshot; writers then commit `rate` changes a second for `seconds` (batches of `--tail-batch` documents, default 10, a few commits in
///   flight, each change a new version of a document of 5 fields with a nested map, ``tailFields(_:seq:version:)``), and a sink wrapped around the mirror
///   notes, for each change, the time its batch committed minus the change's commit time (its `updateTime`, the
///   emulator's clock, which is this machine's): commit-to-row lag, p50 and p99. Also the snapshot's read time minus
///   the commit time (what the Listen stream adds), the rate the writers achieved, and the rows a second the
///   mirror applied.
enum MirrorLiveWorkload {
    // MARK: mirror-backfill

    static func backfill(documents: Int, repeats: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "mirror-backfill") else { return [] }
        let projectID = ListenSupport.projectID("mirror")
        let db = try Firestore.emulator(host: host, projectID: projectID)
        let collection = db.collection("items")
        let seeded = try blocking { try await seed(collection, projectID: projectID, count: documents) }
        print(
            "mirror-backfill: seeded \(documents) documents in "
                + String(format: "%.1f s (%@)", seeded, MirrorSupport.rate(documents, seeded)))
        let folder = try MirrorSupport.temporaryDirectory("mirror-backfill")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var measurements: [Measurement] = []
        var run = 0
        measurements.append(
            try compare("mirror-backfill-sqlite", collection, documents: documents, repeats: repeats) {
                run += 1
                let path = "\(folder)/mirror\(run).sqlite"
                return { try await SQLiteMirror(path: path) }
            })
        if let url = MirrorSupport.postgres(workload: "mirror-backfill") {
            let drop = "DROP TABLE IF EXISTS bench_backfill, bench_backfill_tombstones, bench_backfill_resume"
            let psql = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", drop]
            measurements.append(
                try compare("mirror-backfill-postgres", collection, documents: documents, repeats: repeats) {
                    try MirrorSupport.check("psql", psql)
                    return { try await PostgresMirror(url: url, table: "bench_backfill") }
                })
            try MirrorSupport.check("psql", psql)
        }
        return measurements
    }

    /// The backfill into the sink `fresh` opens (called before each run, untimed) against `getDocuments()`.
    static func compare<Sink: FeedSink>(
        _ workload: String, _ collection: CollectionReference, documents: Int, repeats: Int,
        fresh: () throws -> @Sendable () async throws -> Sink
    ) throws -> Measurement {
        var mirrorTimes: [Double] = []
        var readTimes: [Double] = []
        var billed = 0
        var pages = 0
        var reading: [Double] = []
        for _ in 0..<max(repeats, 1) {
            let open = try fresh()
            let result = try blocking {
                let sink = try await open()
                return try await timedBackfill(collection, into: sink)
            }
            if result.loaded != documents {
                print("CHECK FAILED: \(workload): the backfill loaded \(result.loaded) of \(documents) documents")
            }
            mirrorTimes.append(result.seconds)
            reading.append(result.reading)
            (billed, pages) = (result.billed, result.pages)
            let read = try blocking {
                let start = ContinuousClock.now
                let snapshot = try await collection.getDocuments()
                return (ListenSupport.seconds(ContinuousClock.now - start), snapshot.count)
            }
            if read.1 != documents {
                print("CHECK FAILED: \(workload): getDocuments returned \(read.1) of \(documents) documents")
            }
            readTimes.append(read.0)
        }
        let median = Harness.median(mirrorTimes)
        print(
            "\(workload): \(MirrorSupport.rate(documents, median)), "
                + String(format: "%.1f µs a document; ", median * 1e6 / Double(max(documents, 1)))
                + String(format: "the pages' runQuery calls %.2f s of it (median); ", Harness.median(reading))
                + "billed reads of the load \(billed) in \(pages) pages ("
                + String(format: "%.4f", Double(billed) / Double(max(documents, 1))) + " a document)")
        print(
            #"{"workload":"\#(workload)-reads","n":\#(documents),"billed_reads":\#(billed),"pages":\#(pages),"#
                + #""us_per_document":\#(median * 1e6 / Double(max(documents, 1)))}"#)
        return Measurement(
            workload: workload, n: documents, medianSeconds: median, baseline: "getDocuments (read alone)",
            baselineMedianSeconds: Harness.median(readTimes))
    }

    struct Backfill: Sendable {
        var seconds: Double
        var loaded: Int
        var billed: Int
        var pages: Int
        /// The pages' runQuery latencies summed (`PollStatistics.latency`): the reads' share of ``seconds``.
        var reading: Double
    }

    /// Runs `collection.mirror(into: sink)` until its backfill's last page is committed, then cancels it.
    static func timedBackfill<Sink: FeedSink>(_ collection: CollectionReference, into sink: Sink) async throws
        -> Backfill
    {
        let (events, continuation) = AsyncStream<(loaded: Int, complete: Bool, billed: Int, latency: Duration)>
            .makeStream()
        let start = ContinuousClock.now
        let task = Task {
            defer { continuation.finish() }
            try await collection.mirror(into: sink, pageSize: 1000) { event in
                if case .backfillPage(let loaded, _, let complete, let statistics) = event {
                    continuation.yield((loaded, complete, statistics.billedReads, statistics.latency))
                }
            }
        }
        var result = Backfill(seconds: 0, loaded: 0, billed: 0, pages: 0, reading: 0)
        for await page in events {
            result.billed += page.billed
            result.pages += 1
            result.reading += ListenSupport.seconds(page.latency)
            result.loaded = page.loaded
            if page.complete {
                result.seconds = ListenSupport.seconds(ContinuousClock.now - start)
                break
            }
        }
        task.cancel()
        try await task.value
        guard result.seconds > 0 else { throw BenchmarkError(message: "mirror: the backfill ended unfinished") }
        return result
    }

    /// Writes `count` documents `d0 ... d(count-1)` with a BulkWriter (no throttle); the seconds it took.
    static func seed(_ collection: CollectionReference, projectID: String, count: Int) async throws -> Double {
        let root = "projects/\(projectID)/databases/(default)/documents"
        let start = ContinuousClock.now
        let writer = try collection.firestore.bulkWriter(options: BulkWriter.Options(throttling: .disabled))
        for index in 0..<count {
            _ = try await writer.setData(
                MirrorSupport.fields(index, root: root).mapValues { .value($0) },
                forDocument: collection.document("d\(String(format: "%07d", index))"))
        }
        try await writer.close()
        return ListenSupport.seconds(ContinuousClock.now - start)
    }

    // MARK: mirror-tail

    static func tail(rate: Int, seconds: Double, documents: Int) throws {
        guard let host = ListenSupport.emulatorHost(workload: "mirror-tail") else { return }
        let folder = try MirrorSupport.temporaryDirectory("mirror-tail")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try steady(
            "mirror-tail-sqlite", host: host, rate: rate, seconds: seconds, documents: documents,
            open: { try await SQLiteMirror(path: "\(folder)/tail.sqlite") })
        if let url = MirrorSupport.postgres(workload: "mirror-tail") {
            let drop = "DROP TABLE IF EXISTS bench_tail, bench_tail_tombstones, bench_tail_resume"
            let psql = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", drop]
            try MirrorSupport.check("psql", psql)
            try steady(
                "mirror-tail-postgres", host: host, rate: rate, seconds: seconds, documents: documents,
                open: { try await PostgresMirror(url: url, table: "bench_tail") })
            try MirrorSupport.check("psql", psql)
        }
    }

    /// A change of the tail: 5 fields, a nested map among them (about 200 bytes; the emulator takes fewer than 200 a
    /// second of `mirror-load`'s 1.3 KB documents with a Listen target on them, on 2 shared cores).
    static func tailFields(_ index: Int, seq: Int, version: Int) -> [String: FirestoreValue] {
        [
            "title": .string("Item number \(index) with a reasonably long title"),
            "count": .integer(Int64(index) * 7919),
            "active": .boolean(index % 2 == 0), "seq": .integer(Int64(seq)),
            "meta": .map([
                "version": .integer(Int64(version)), "source": .string("import-\(index % 50)"), "note": .null,
            ]),
        ]
    }

    /// What the tail's writers did.
    struct Written: Sendable {
        var changes: Int
        var seconds: Double
        var lateCommits: Int
    }

    static func steady<Sink: FeedSink>(
        _ workload: String, host: String, rate: Int, seconds: Double, documents: Int,
        open: @escaping @Sendable () async throws -> Sink
    ) throws {
        let projectID = ListenSupport.projectID("mirror-tail")
        let db = try Firestore.emulator(host: host, projectID: projectID)
        let collection = db.collection("tail")
        let batchSize = tailBatch
        let result = try blocking { () -> (Written, LagRecorder<Sink>.State) in
            _ = try await seed(collection, projectID: projectID, count: documents)
            let recorder = LagRecorder(try await open())
            let mirror = Task { try await collection.mirror(into: recorder, pageSize: 1000) }
            defer { mirror.cancel() }
            // Past the backfill and the Listen's first snapshot (a batch with a resume token).
            let deadline = ContinuousClock.now + .seconds(120)
            while !recorder.state.withLock({ $0.listening }) {
                guard ContinuousClock.now < deadline else {
                    throw BenchmarkError(message: "\(workload): the mirror never reached its Listen tail")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            let written = try await write(
                collection, projectID: projectID, documents: documents, rate: rate, seconds: seconds,
                batchSize: batchSize)
            // Until every change is applied, or nothing more comes for 10 s.
            var seen = recorder.state.withLock { $0.seen }
            var quiet = ContinuousClock.now
            while seen < written.changes, ContinuousClock.now - quiet < .seconds(10) {
                try await Task.sleep(for: .milliseconds(100))
                let now = recorder.state.withLock { $0.seen }
                if now != seen { (seen, quiet) = (now, ContinuousClock.now) }
            }
            mirror.cancel()
            try await mirror.value
            return (written, recorder.state.withLock { $0 })
        }
        let (written, state) = result
        let p = ListenSupport.percentile
        let ms = ListenSupport.ms
        var applySpan = 0.0
        if let first = state.firstApplied, let last = state.lastApplied { applySpan = last.timeIntervalSince(first) }
        let applied = state.seen
        let appliedRate = applySpan > 0 ? Double(applied) / applySpan : 0
        let offered = written.seconds > 0 ? Double(written.changes) / written.seconds : 0
        print(
            "\(workload) n=\(written.changes)  writers \(String(format: "%.0f", offered)) changes/s (asked \(rate), "
                + "\(written.lateCommits) of \(written.changes / batchSize) commits started late); applied \(applied) "
                + "at \(String(format: "%.0f", appliedRate)) rows/s in \(state.batches) batches; commit-to-row lag "
                + "p50 \(ms(p(state.lags, 0.5)))  p99 \(ms(p(state.lags, 0.99)))  max \(ms(state.lags.max() ?? 0)); "
                + "commit-to-read-time p50 \(ms(p(state.readLags, 0.5)))  p99 \(ms(p(state.readLags, 0.99)))")
        print(
            #"{"workload":"\#(workload)","n":\#(written.changes),"offered_per_s":\#(offered),"asked_per_s":\#(rate),"#
                + #""applied":\#(applied),"applied_per_s":\#(appliedRate),"batches":\#(state.batches),"#
                + #""lag_p50_s":\#(p(state.lags, 0.5)),"lag_p99_s":\#(p(state.lags, 0.99)),"#
                + #""read_time_lag_p50_s":\#(p(state.readLags, 0.5)),"read_time_lag_p99_s":\#(p(state.readLags, 0.99))}"#
        )
        if applied < written.changes {
            print(
                "\(workload): \(written.changes - applied) changes not seen as their own version (coalesced by the "
                    + "Listen stream with a later write of the same document, or not delivered within 10 s)")
        }
    }

    /// Commits `rate` changes a second for `seconds` into `collection` (its documents `d0 ...`, in turn), in batches
    /// of `batchSize`, each commit scheduled at its own time (4 writers, so a commit's round trip does not hold back
    /// the next); a commit whose time passed starts at once (counted late).
    static func write(
        _ collection: CollectionReference, projectID: String, documents: Int, rate: Int, seconds: Double,
        batchSize: Int
    ) async throws -> Written {
        let commits = max(Int(Double(rate) * seconds) / batchSize, 1)
        let period = Duration.seconds(Double(batchSize) / Double(rate))
        let writers = 4
        let clock = ContinuousClock()
        let start = clock.now
        let late = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var late = 0
                    for commit in stride(from: writer, to: commits, by: writers) {
                        let due = start + period * commit
                        if clock.now < due {
                            try await Task.sleep(until: due, clock: clock)
                        } else if clock.now - due > period {
                            late += 1
                        }
                        let batch = collection.firestore.batch()
                        for change in commit * batchSize..<(commit + 1) * batchSize {
                            let index = change % documents
                            let fields = tailFields(index, seq: change, version: change / documents + 1)
                            try batch.setData(
                                fields.mapValues { .value($0) },
                                forDocument: collection.document("d\(String(format: "%07d", index))"))
                        }
                        try await batch.commit()
                    }
                    return late
                }
            }
            return try await group.reduce(0, +)
        }
        return Written(
            changes: commits * batchSize, seconds: ListenSupport.seconds(clock.now - start), lateCommits: late)
    }
}

/// A sink around `inner` that notes, for each put of a document with a `seq` field, when its batch committed minus
/// the document's commit time (`updateTime`), and the batch's read time minus it.
final class LagRecorder<Inner: FeedSink>: FeedSink {
    struct State: Sendable {
        var lags: [Double] = []
        var readLags: [Double] = []
        var seen = 0
        var batches = 0
        var listening = false
        var firstApplied: Date?
        var lastApplied: Date?
    }

    let inner: Inner
    let state = Mutex(State())

    init(_ inner: Inner) { self.inner = inner }

    func resumePoint(shard: Int) async throws -> FeedSinkResumePoint? { try await inner.resumePoint(shard: shard) }

    func documents() async throws -> [Document] { try await inner.documents() }

    func apply(_ batch: FeedSinkBatch) async throws {
        try await inner.apply(batch)
        let now = Date()
        state.withLock { state in
            if batch.resumeToken != nil { state.listening = true }
            var counted = false
            for case .put(let document) in batch.changes where document.fields["seq"] != nil {
                guard let committed = document.updateTime?.dateValue else { continue }
                state.lags.append(now.timeIntervalSince(committed))
                if let read = batch.readTime?.dateValue { state.readLags.append(read.timeIntervalSince(committed)) }
                state.seen += 1
                state.firstApplied = state.firstApplied ?? now
                state.lastApplied = now
                counted = true
            }
            if counted { state.batches += 1 }
        }
    }
}
