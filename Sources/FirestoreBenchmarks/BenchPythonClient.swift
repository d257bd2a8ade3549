import Foundation

/// `Scripts/bench-grpc-client` as a long-lived child process: a bare grpcio client and Google's Python client for
/// the emulator, answering one command per line. Started once per workload, so Python's start-up and imports are
/// not measured. The Python comes from `FIRESTORE_FEED_TEST_PYTHON`, else `.build/test-venv/bin/python`.
///
/// Its calls block the calling thread while the child works: they are made from the benchmark's synchronous main
/// thread only, never from a task.
final class BenchPythonClient {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending: [UInt8] = []
    /// The Python interpreter it runs.
    private(set) var executable = ""

    /// Starts the client for the emulator at `host`, or returns `nil` (printing why) when no Python with grpcio
    /// is found.
    static func start(host: String, workload: String) throws -> BenchPythonClient? {
        guard let python = python() else {
            print(
                "\(workload): Python rows skipped (no FIRESTORE_FEED_TEST_PYTHON or .build/test-venv: Scripts/test-python)"
            )
            return nil
        }
        let client = BenchPythonClient()
        client.executable = python
        client.process.executableURL = URL(fileURLWithPath: python)
        client.process.arguments = ["Scripts/bench-grpc-client", host]
        client.process.standardInput = client.input
        client.process.standardOutput = client.output
        try client.process.run()
        return client
    }

    /// The Python of the tests (`FIRESTORE_FEED_TEST_PYTHON`, else `.build/test-venv/bin/python` of the current
    /// folder), or `nil`.
    static func python() -> String? {
        let venv = FileManager.default.currentDirectoryPath + "/.build/test-venv/bin/python"
        return ProcessInfo.processInfo.environment["FIRESTORE_FEED_TEST_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (FileManager.default.isExecutableFile(atPath: venv) ? venv : nil)
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()  // the benchmark's main thread (see above)
    }

    /// Sends `command` and returns the child's answer line.
    /// - Throws: ``BenchmarkError`` when the child ends or answers anything but `ok ...`.
    @discardableResult
    func run(_ command: String) throws -> String {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
        while !pending.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData  // blocks this (main) thread only
            guard !chunk.isEmpty else { throw BenchmarkError(message: "bench-grpc-client ended") }
            pending += chunk
        }
        let end = pending.firstIndex(of: UInt8(ascii: "\n")) ?? pending.endIndex
        let line = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeSubrange(...min(end, pending.count - 1))
        guard line.hasPrefix("ok") else { throw BenchmarkError(message: "bench-grpc-client: \(line)") }
        return line
    }
}
