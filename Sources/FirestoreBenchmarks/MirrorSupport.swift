import FirestoreREST
import Foundation

/// `--postgres-url URL`: the PostgreSQL of the mirror workloads (else `FIRESTORE_FEED_TEST_POSTGRES_URL`).
nonisolated(unsafe) var postgresURL: String?

/// What the mirror workloads (`mirror-load`, `mirror-backfill`, `mirror-tail`, issue 36) share: the documents, the
/// PostgreSQL server, the system shells (`sqlite3`, `psql`) run as whole commands, the CSV of the rows.
enum MirrorSupport {
    /// The fields of document `index`: the ~1 KB, 10-field documents of the other workloads
    /// (``BenchmarkDocuments``: strings, int64, double, boolean, timestamp, array, geo point, a reference, a nested
    /// map), the reference pointing into `root` (a database's documents: the emulator refuses another's).
    static func fields(
        _ index: Int, root: String = BenchmarkDocuments.root, version: Int = 0
    ) -> [String: FirestoreValue] {
        var fields = BenchmarkDocuments.document(index, version: version).fields
        fields["owner"] = .reference("\(root)/users/u\(index % 100)")
        return fields
    }

    /// The PostgreSQL URL of the mirror workloads (`--postgres-url`, else `FIRESTORE_FEED_TEST_POSTGRES_URL`), or `nil`
    /// after printing that `workload`'s PostgreSQL part is skipped. The benchmark does not start a server itself: a
    /// `Process` it waits for must not leave a daemon holding its descriptors (Foundation's wait for the child's end
    /// then lasts as long as the daemon), so `Scripts/bench` starts one with `Scripts/postgres` and passes it.
    static func postgres(workload: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let url = postgresURL ?? environment["FIRESTORE_FEED_TEST_POSTGRES_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return url
        }
        print(
            "\(workload): PostgreSQL part skipped (no --postgres-url and no FIRESTORE_FEED_TEST_POSTGRES_URL; "
                + "Scripts/postgres start prints one)")
        return nil
    }

    struct CommandResult {
        var status: Int32
        var output: String
        var errors: String
        var seconds: Double
    }

    /// Runs `executable` (a path, or a name looked up in `PATH`) with `arguments` to its end, its output and errors
    /// in files (no pipe to fill), and the wall time from launch to exit. Waits on the calling thread: the benchmark's
    /// main thread, never a thread of the cooperative pool.
    static func command(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> CommandResult {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment { process.environment = environment }
        let base = NSTemporaryDirectory() + "firestore-bench-cmd-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        process.waitUntilExit()  // the benchmark's main thread (see above)
        let seconds = ListenSupport.seconds(clock.now - start)
        try? output.close()
        try? errors.close()
        let outText = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
        let errText = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
        return CommandResult(status: process.terminationStatus, output: outText, errors: errText, seconds: seconds)
    }

    /// ``command(_:_:environment:)``, throwing when it exits with a failure.
    @discardableResult
    static func check(_ executable: String, _ arguments: [String]) throws -> CommandResult {
        let result = try command(executable, arguments)
        guard result.status == 0 else {
            throw BenchmarkError(
                message: "\(executable) \(arguments.prefix(3).joined(separator: " ")) exited \(result.status): "
                    + result.errors.suffix(1000))
        }
        return result
    }

    /// Whether `name` is a command in `PATH`.
    static func available(_ name: String) -> Bool {
        (try? command("sh", ["-c", "command -v \(name)"]))?.status == 0
    }

    /// `time` as the mirrors store it: RFC 3339 in UTC with 9 fraction digits.
    static func text(_ time: Timestamp) -> String {
        var text = time.rfc3339
        text.removeLast()  // "Z"
        if let dot = text.firstIndex(of: ".") {
            text += String(repeating: "0", count: 9 - (text.distance(from: dot, to: text.endIndex) - 1))
        } else {
            text += ".000000000"
        }
        return text + "Z"
    }

    /// Writes the rows of `documents` as the mirrors hold them (name, fields as REST `Value` JSON, create_time,
    /// update_time, read_time) to a CSV file at `path` (RFC 4180 quoting, no header): the input of `psql \copy` and
    /// of `sqlite3 .import`. Returns its size in bytes.
    static func writeCSV(_ documents: [Document], readTime: Timestamp, to path: String) throws -> Int {
        func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let read = text(readTime)
        var data = Data()
        data.reserveCapacity(documents.count * 1200)
        for document in documents {
            let fields = FirestoreValue.encodeFields(document.fields).serializedString()
            let line = [
                quoted(document.name), quoted(fields), document.createTime.map { quoted(text($0)) } ?? "",
                document.updateTime.map { quoted(text($0)) } ?? "", quoted(read),
            ].joined(separator: ",")
            data.append(contentsOf: line.utf8)
            data.append(UInt8(ascii: "\n"))
        }
        try data.write(to: URL(fileURLWithPath: path))
        return data.count
    }

    /// A fresh private folder.
    static func temporaryDirectory(_ label: String) throws -> String {
        let path = NSTemporaryDirectory() + "firestore-bench-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Rows per second.
    static func rate(_ count: Int, _ seconds: Double) -> String {
        seconds > 0 ? String(format: "%.0f rows/s", Double(count) / seconds) : "-"
    }
}
