import FirestoreREST
import Foundation

/// `--postgres-url URL`: the PostgreSQL of the mirror workloads (else `FIRESTORE_FEED_TEST_POSTGRES_URL`, else one
/// started with `Scripts/postgres start`).
nonisolated(unsafe) var postgresURL: String?

/// What the mirror workloads (`mirror-load`, `mirror-backfill`, `mirror-tail`, issue 36) share: the documents, the
/// PostgreSQL server, the system shells (`sqlite3`, `psql`) run as whole commands, the CSV of the rows.
enum MirrorSupport {
    /// The server this process started (its `POSTGRES_STATE_DIR`), stopped by ``stopPostgres()``.
    nonisolated(unsafe) private static var startedStateDirectory: String?
    /// The URL once looked for (`.some(nil)`: none to be had).
    nonisolated(unsafe) private static var resolved: String??

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

    /// The PostgreSQL URL of the mirror workloads, or `nil` after printing that `workload`'s PostgreSQL part is
    /// skipped. Started at most once per process (then stopped by ``stopPostgres()`` at exit).
    static func postgres(workload: String) -> String? {
        if let resolved { return resolved }
        let environment = ProcessInfo.processInfo.environment
        var url = postgresURL ?? environment["FIRESTORE_FEED_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if url == nil, FileManager.default.isExecutableFile(atPath: "Scripts/postgres") {
            let state = NSTemporaryDirectory() + "firestore-bench-pg-\(getpid())"
            var childEnvironment = environment
            childEnvironment["POSTGRES_STATE_DIR"] = state
            if let result = try? command("Scripts/postgres", ["start"], environment: childEnvironment) {
                startedStateDirectory = state
                if result.status == 0, let line = result.output.split(separator: "\n").last {
                    url = String(line)
                } else {
                    print("\(workload): Scripts/postgres start failed: \(result.errors.suffix(500))")
                }
            }
        }
        if url == nil {
            print(
                "\(workload): PostgreSQL part skipped (no --postgres-url, no FIRESTORE_FEED_TEST_POSTGRES_URL, and "
                    + "Scripts/postgres could not start one; run from the repository's root)")
        }
        resolved = .some(url)
        return url
    }

    /// Stops the server ``postgres(workload:)`` started, if any.
    static func stopPostgres() {
        guard let state = startedStateDirectory else { return }
        startedStateDirectory = nil
        var environment = ProcessInfo.processInfo.environment
        environment["POSTGRES_STATE_DIR"] = state
        _ = try? command("Scripts/postgres", ["stop"], environment: environment)
        try? FileManager.default.removeItem(atPath: state)
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
