import FirestoreREST
import FirestoreTestSupport
import Foundation

/// `Scripts/sse-load-client` as a child process: commands go to its stdin, one per line; its JSON lines come back
/// on stdout, read on a thread of their own (``PipeCollector``).
final class LoadClient: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private let process = Process()
    private let input = Pipe()
    private let output: PipeCollector
    private let errorOutput: PipeCollector
    private let lock = NSLock()
    private var taken = 0
    private var stopped = false

    /// Starts the script under `python` with `arguments`.
    init(python: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: python)
        let script = PythonServerProcess.root.appendingPathComponent("Scripts/sse-load-client")
        process.arguments = [script.path] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        output = PipeCollector(out.fileHandleForReading)
        errorOutput = PipeCollector(err.fileHandleForReading)
    }

    /// What the script wrote on stderr so far.
    var errors: String { String(decoding: errorOutput.data, as: UTF8.self) }

    /// Writes `command` and a line break to the script's stdin (a few bytes to a pipe the script keeps reading).
    func send(_ command: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    /// The script's next JSON line, waiting up to `timeout` seconds (a hang guard); `nil` when it ended or wrote none.
    func line(timeout: Double) async throws -> JSONValue? {
        let next = lock.withLock { taken }
        let lines = await output.lines(atLeast: next + 1, timeout: timeout)
        guard lines.count > next else { return nil }
        lock.withLock { taken = next + 1 }
        return try JSONValue.parse(lines[next])
    }

    /// Closes its stdin (the script exits) and ends it if it is still running.
    func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        try? input.fileHandleForWriting.close()
        process.end(grace: 10)
    }
}
