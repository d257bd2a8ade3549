import FirestoreREST
import Foundation

/// One of the repository's Python loopback servers (`Scripts/grpc-script-server`, `Scripts/tcp-fault-proxy`) as a
/// child process (``PythonServerProcess``): started with its arguments, ready once it prints
/// `LISTENING 127.0.0.1:PORT`, then read line by line as JSON events; ended when the value goes (its stdin closes,
/// then SIGTERM).
package final class LoopbackPythonServer: Sendable {
    private let child: PythonServerProcess
    /// `127.0.0.1:PORT`.
    package let host: String

    /// Starts `Scripts/<script>` with `arguments` under `python` and waits (on a thread of its own) until it listens.
    package static func start(_ script: String, arguments: [String], python: String = "/usr/bin/python3") async throws
        -> LoopbackPythonServer
    {
        try await BlockingWork.run { try LoopbackPythonServer(script: script, arguments: arguments, python: python) }
    }

    private init(script: String, arguments: [String], python: String) throws {
        child = try PythonServerProcess(.repositoryScript(script), arguments: arguments, python: python)
        guard child.firstLine.hasPrefix("LISTENING ") else {
            child.stop()
            throw PythonServerProcess.StartError(
                description: "Scripts/\(script) did not start: it printed \(child.firstLine)")
        }
        host = String(child.firstLine.dropFirst("LISTENING ".count))
    }

    deinit { stop() }

    /// Stops the server (closing its stdin, then ending it).
    package func stop() { child.stop() }

    /// Sends `name` as one line on the server's stdin (`Scripts/tcp-fault-proxy`'s commands: `blackhole`, `heal`,
    /// `cut`) and waits (up to 30 s, a hang guard) for the `command` event that says it is done.
    /// - Returns: that event, or `nil` when it did not come.
    @discardableResult
    package func command(_ name: String) async throws -> JSONValue? {
        let before = events("command").count
        try child.input.fileHandleForWriting.write(contentsOf: Data((name + "\n").utf8))
        guard await wait(until: { events("command").count > before }) else { return nil }
        return events("command").dropFirst(before).first
    }

    /// Every JSON line logged so far.
    package var events: [JSONValue] {
        child.output.lines.dropFirst().compactMap { try? JSONValue.parse($0) }
    }

    /// The logged events of kind `event`.
    package func events(_ kind: String) -> [JSONValue] {
        events.filter { $0["event"] == .string(kind) }
    }

    /// What the server wrote on stderr.
    package var stderr: String { String(decoding: child.errors.data, as: UTF8.self) }

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
