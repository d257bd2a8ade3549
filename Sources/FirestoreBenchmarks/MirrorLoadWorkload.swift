import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import Foundation

/// `mirror-load` (issue 36): the store's apply cost of an initial load, without the network. `count` documents (the
/// ~1 KB, 10-field documents of the other workloads, a nested map among them) applied as ``FeedSinkBatch`` pages of
/// 1,000 puts (what `mirror(into:)`'s backfill hands the sink) into a fresh `SQLiteMirror` / `PostgresMirror`,
/// against the store's own bulk load of the same rows in the same shape in the same run, interleaved, `repeats`
/// times each: the `sqlite3` shell's `.import` of a CSV file into a table of the same shape (WAL, `synchronous =
/// NORMAL`, one transaction), and `psql`'s `\copy` of the same file (a `jsonb` column, `COLLATE "C"` text, the
/// primary key). Each side is timed as one whole command, wall time: the mirror's from opening it (its tables
/// created) to the last page committed, its JSON encoding of the fields included; the shell's from launch to exit
/// (the CSV, holding the fields' JSON already, is written beforehand, untimed). Target (PostgreSQL): at most 1.5x
/// `COPY`. Then, information: updates applied in batches of 100 (the shape of a live tail's snapshots) into the
/// loaded mirror (`mirror-apply-*`, rows a second).
enum MirrorLoadWorkload {
    static let pageSize = 1000

    static func run(count: Int, repeats: Int) throws -> [Measurement] {
        let readTime = try Timestamp(seconds: 1_714_567_000, nanos: 0)
        let documents = (0..<count).map { index in
            var document = BenchmarkDocuments.document(index)
            document.fields = MirrorSupport.fields(index)
            return document
        }
        let updates = (0..<min(count, quick ? 1_000 : 10_000)).map { index in
            var document = BenchmarkDocuments.document(index, version: 1)
            document.fields = MirrorSupport.fields(index, version: 1)
            return document
        }
        let folder = try MirrorSupport.temporaryDirectory("mirror-load")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let csv = folder + "/rows.csv"
        let bytes = try MirrorSupport.writeCSV(documents, readTime: readTime, to: csv)
        print(
            "mirror-load: \(count) documents, \(bytes / max(count, 1)) B a row in CSV (\(bytes / 1_048_576) MiB), "
                + "pages of \(pageSize), \(repeats) runs a side")
        var measurements: [Measurement] = []
        if MirrorSupport.available("sqlite3") {
            measurements += try sqlite(
                documents, updates: updates, readTime: readTime, csv: csv, folder: folder, repeats: repeats)
        } else {
            print("mirror-load: SQLite part skipped (no sqlite3 shell: Scripts/ensure-deps --tests installs it)")
        }
        if let url = MirrorSupport.postgres(workload: "mirror-load") {
            if MirrorSupport.available("psql") {
                measurements += try postgres(
                    documents, updates: updates, readTime: readTime, csv: csv, url: url, repeats: repeats)
            } else {
                print("mirror-load: PostgreSQL part skipped (no psql: Scripts/ensure-deps --tests installs it)")
            }
        }
        return measurements
    }

    /// The pages of a backfill of `documents` at `readTime`, the last one without a cursor.
    static func pages(_ documents: [Document], readTime: Timestamp, size: Int) -> [FeedSinkBatch] {
        stride(from: 0, to: documents.count, by: size).map { first in
            let page = documents[first..<min(first + size, documents.count)]
            let last = first + size >= documents.count
            return FeedSinkBatch(
                changes: page.map { .put($0) }, readTime: readTime, resumeToken: nil, query: "bench",
                loadCursor: last ? nil : page.last?.name)
        }
    }

    static func sqlite(
        _ documents: [Document], updates: [Document], readTime: Timestamp, csv: String, folder: String, repeats: Int
    ) throws -> [Measurement] {
        let pages = pages(documents, readTime: readTime, size: pageSize)
        let shape = """
            CREATE TABLE documents (
                name TEXT PRIMARY KEY NOT NULL,
                fields TEXT NOT NULL,
                create_time TEXT,
                update_time TEXT NOT NULL,
                read_time TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            """
        var mirrorTimes: [Double] = []
        var shellTimes: [Double] = []
        var run = 0
        func remove(_ path: String) {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        for round in 0..<max(repeats, 1) {
            run += 1
            let mirrorPath = "\(folder)/mirror\(run).sqlite"
            let shellPath = "\(folder)/shell\(run).sqlite"
            mirrorTimes.append(
                try Harness.seconds {
                    try blocking {
                        let mirror = try await SQLiteMirror(path: mirrorPath)
                        for page in pages { try await mirror.apply(page) }
                    }
                })
            // Each argument runs in turn on one connection.
            let result = try MirrorSupport.check(
                "sqlite3",
                [
                    "-batch", shellPath, "PRAGMA journal_mode = WAL;", "PRAGMA synchronous = NORMAL;", shape,
                    ".import --csv \(csv) documents",
                ])
            shellTimes.append(result.seconds)
            let check = "SELECT count(*), sum(length(fields)), max(read_time) FROM documents"
            let mirrored = try MirrorSupport.check("sqlite3", ["-batch", mirrorPath, check]).output
            let imported = try MirrorSupport.check("sqlite3", ["-batch", shellPath, check]).output
            if mirrored != imported || !mirrored.hasPrefix("\(documents.count)|") {
                print("CHECK FAILED: mirror-load-sqlite: the mirror holds \(mirrored), the import \(imported)")
            }
            if round == repeats - 1 {
                try applyRate(
                    "mirror-apply-sqlite", updates: updates, readTime: readTime,
                    open: { try await SQLiteMirror(path: mirrorPath) })
            }
            remove(mirrorPath)
            remove(shellPath)
        }
        let encoding = encodingSeconds(documents, asRows: false)
        print(
            "mirror-load-sqlite: of which the fields' JSON encoding (each document's, as the mirror binds it) "
                + String(format: "%.2f s", encoding))
        return [
            Measurement(
                workload: "mirror-load-sqlite", n: documents.count, medianSeconds: Harness.median(mirrorTimes),
                baseline: "sqlite3 .import (CSV)", baselineMedianSeconds: Harness.median(shellTimes))
        ]
    }

    static func postgres(
        _ documents: [Document], updates: [Document], readTime: Timestamp, csv: String, url: String, repeats: Int
    ) throws -> [Measurement] {
        let pages = pages(documents, readTime: readTime, size: pageSize)
        let psql = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url]
        let drop =
            "DROP TABLE IF EXISTS bench_mirror, bench_mirror_tombstones, bench_mirror_resume, bench_copy; CHECKPOINT"
        let shape = """
            CREATE TABLE bench_copy (
                name text COLLATE "C" PRIMARY KEY,
                fields jsonb NOT NULL,
                create_time text COLLATE "C",
                update_time text COLLATE "C" NOT NULL,
                read_time text COLLATE "C" NOT NULL
            )
            """
        let copy =
            "\\copy bench_copy (name, fields, create_time, update_time, read_time) FROM '\(csv)' WITH (FORMAT csv)"
        var mirrorTimes: [Double] = []
        var copyTimes: [Double] = []
        var roundTrips = 0
        for round in 0..<max(repeats, 1) {
            try MirrorSupport.check("psql", psql + ["-c", drop])
            mirrorTimes.append(
                try Harness.seconds {
                    roundTrips = try blocking {
                        let mirror = try await PostgresMirror(url: url, table: "bench_mirror")
                        for page in pages { try await mirror.apply(page) }
                        return mirror.statistics.roundTrips
                    }
                })
            let result = try MirrorSupport.check("psql", psql + ["-c", shape, "-c", copy])
            copyTimes.append(result.seconds)
            let check = { (table: String) in
                "SELECT count(*), sum(length(fields::text)), max(read_time) FROM \(table)"
            }
            let mirrored = try MirrorSupport.check("psql", psql + ["-At", "-c", check("bench_mirror")]).output
            let copied = try MirrorSupport.check("psql", psql + ["-At", "-c", check("bench_copy")]).output
            if mirrored != copied || !mirrored.hasPrefix("\(documents.count)|") {
                print("CHECK FAILED: mirror-load-postgres: the mirror holds \(mirrored), COPY \(copied)")
            }
            if round == repeats - 1 {
                try applyRate(
                    "mirror-apply-postgres", updates: updates, readTime: readTime,
                    open: { try await PostgresMirror(url: url, table: "bench_mirror") })
            }
        }
        try MirrorSupport.check("psql", psql + ["-c", drop])
        let encoding = encodingSeconds(documents, asRows: true)
        print(
            "mirror-load-postgres: \(roundTrips) round trips for \(pages.count) pages; of which the rows' "
                + "encoding (each page's COPY data, as the mirror writes it, overlapping the server's work) "
                + String(format: "%.2f s", encoding))
        return [
            Measurement(
                workload: "mirror-load-postgres", n: documents.count, medianSeconds: Harness.median(mirrorTimes),
                baseline: "psql \\copy (CSV)", baselineMedianSeconds: Harness.median(copyTimes), target: 1.5)
        ]
    }

    /// Seconds to encode the fields of `documents` as the mirrors do: each document's fields alone through a
    /// `JSONValue` tree (SQLite binds one text a row), or (`asRows`) each page of 1,000 written straight into one
    /// buffer with its names and times (PostgreSQL's `COPY` data, its few bytes of framing aside). Median of 3.
    static func encodingSeconds(_ documents: [Document], asRows: Bool) -> Double {
        var bytes = 0
        let times = (0..<3).map { _ in
            Harness.seconds {
                if asRows {
                    for first in stride(from: 0, to: documents.count, by: pageSize) {
                        var output: [UInt8] = []
                        for document in documents[first..<min(first + pageSize, documents.count)] {
                            output.append(contentsOf: document.name.utf8)
                            FirestoreValue.writeRESTFields(document.fields, to: &output)
                            if let time = document.createTime { MirrorTimeText.write(time, to: &output) }
                            if let time = document.updateTime { MirrorTimeText.write(time, to: &output) }
                        }
                        bytes &+= output.count
                    }
                } else {
                    for document in documents {
                        bytes &+= FirestoreValue.encodeFields(document.fields).serializedString().utf8.count
                    }
                }
            }
        }
        if bytes == 42 { print("") }
        return Harness.median(times)
    }

    /// Applies `updates` (a newer version of loaded documents) in batches of 100, each at a later read time, into the
    /// mirror `open` opens (already loaded), and prints the rate: information, no baseline.
    static func applyRate<Sink: FeedSink>(
        _ name: String, updates: [Document], readTime: Timestamp, open: @escaping @Sendable () async throws -> Sink
    ) throws {
        let size = 100
        let batches = stride(from: 0, to: updates.count, by: size).enumerated().map { offset, first in
            FeedSinkBatch(
                changes: updates[first..<min(first + size, updates.count)].map { .put($0) },
                readTime: (try? Timestamp(seconds: readTime.seconds + 1 + Int64(offset), nanos: 0)) ?? readTime,
                resumeToken: [1, 2, 3], query: "bench")
        }
        let seconds = try blocking {
            let mirror = try await open()
            let start = ContinuousClock.now
            for batch in batches { try await mirror.apply(batch) }
            return ListenSupport.seconds(ContinuousClock.now - start)
        }
        print(
            "\(name) n=\(updates.count)  updates in batches of \(size) into the loaded table: "
                + String(format: "%.2f s, ", seconds) + MirrorSupport.rate(updates.count, seconds)
                + String(format: " (%.2f ms a batch)", seconds * 1000 / Double(max(batches.count, 1))))
        print(
            #"{"workload":"\#(name)","n":\#(updates.count),"seconds":\#(seconds),"#
                + #""rows_per_s":\#(seconds > 0 ? Double(updates.count) / seconds : 0),"batch":\#(size)}"#)
    }
}
