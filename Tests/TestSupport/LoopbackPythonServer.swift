import FirestoreREST
import Foundation

/// One of the repository's Python loopback servers (`Scripts/grpc-script-server`, `Scripts/tcp-fault-proxy`) as a
/// child process: started with its arguments, ready once it prints `LISTENING 127.0.0.1:PORT`, then read line by
/// line as JSON events; ended when the value goes (its stdin closes, then SIGTERM).
package final class LoopbackPythonServer: @unchecked Sendable {
    package struct StartError: Error, CustomStringConvertible { package let description: String }

    private let process = Process()
    private let input = Pipe()
    private let output: PipeCollector
    private let errors: PipeCollector
    /// `127.0.0.1:PORT`.
    package let host: String

    /// The repository's root folder.
    package static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Starts `Scripts/<script>` with `arguments` under `python` and waits (on a thread of its own) until it listens.
    package static func start(_ script: String, arguments: [String], python: String = "/usr/bin/python3") async throws
        -> LoopbackPythonServer
    {
        try await BlockingWork.run { try LoopbackPythonServer(script: script, arguments: arguments, python: python) }
    }

    private init(script: String, arguments: [String], python: String) throws {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.root.appendingPathComponent("Scripts/\(script)").path] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        output = PipeCollector(out.fileHandleForReading)
        errors = PipeCollector(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(30)
        while output.lines.isEmpty, process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard let first = output.lines.first, first.hasPrefix("LISTENING ") else {
            process.end()
            throw StartError(
                description: "Scripts/\(script) did not start: "
                    + String(decoding: errors.data, as: UTF8.self).suffix(2000))
        }
        host = String(first.dropFirst("LISTENING ".count))
    }

    deinit { stop() }

    /// Stops the server (closing its stdin, then ending it).
    package func stop() {
        try? input.fileHandleForWriting.close()
        process.end()
    }

    /// Every JSON line logged so far.
    package var events: [JSONValue] {
        output.lines.dropFirst().compactMap { try? JSONValue.parse($0) }
    }

    /// The logged events of kind `event`.
    package func events(_ kind: String) -> [JSONValue] {
        events.filter { $0["event"] == .string(kind) }
    }

    /// What the server wrote on stderr.
    package var stderr: String { String(decoding: errors.data, as: UTF8.self) }

    /// Waits up to `timeout` seconds until `condition` holds; returns whether it did.
    package func wait(timeout: Double = 30, until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
