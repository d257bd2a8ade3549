import FirestoreREST
import Foundation

/// `Scripts/grpc-script-server` on loopback: a real HTTP/2 gRPC server (Python's `h2`) that plays a script of Listen
/// responses and faults, encoding each message with Google's own protobuf runtime (`google-cloud-firestore`), and
/// logs what it receives (calls, requests decoded to ProtoJSON, PINGs, resets) as JSON lines.
///
/// The Python comes from `FIRESTORE_FEED_TEST_PYTHON` (Scripts/test sets it from `Scripts/test-python`), else from
/// `.build/test-venv` when it exists; without either the server does not start and says how to make it.
package final class ScriptedGRPCServer: @unchecked Sendable {
    package struct StartError: Error, CustomStringConvertible { package let description: String }

    private let process = Process()
    private let input = Pipe()
    private let output: PipeCollector
    private let errors: PipeCollector
    private let scriptURL: URL
    /// `127.0.0.1:PORT`.
    package let host: String

    package static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The interpreter with `h2` and `google-cloud-firestore`.
    package static func python() throws -> String {
        if let path = ProcessInfo.processInfo.environment["FIRESTORE_FEED_TEST_PYTHON"], !path.isEmpty { return path }
        let venv = root.appendingPathComponent(".build/test-venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw StartError(
                description: "no Python for the scripted gRPC server: run Scripts/test-python (Scripts/test does), "
                    + "or set FIRESTORE_FEED_TEST_PYTHON")
        }
        return venv
    }

    /// Starts the server with `script` (the JSON described in `Scripts/grpc-script-server`) and waits until it listens.
    package static func start(script: String) async throws -> ScriptedGRPCServer {
        let python = try python()
        return try await BlockingWork.run { try ScriptedGRPCServer(python: python, script: script) }
    }

    private init(python: String, script: String) throws {
        scriptURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "grpc-script-\(UUID().uuidString).json")
        try Data(script.utf8).write(to: scriptURL)
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            Self.root.appendingPathComponent("Scripts/grpc-script-server").path, "--script", scriptURL.path,
        ]
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
                description: "the scripted gRPC server did not start: "
                    + String(decoding: errors.data, as: UTF8.self).suffix(2000))
        }
        host = String(first.dropFirst("LISTENING ".count))
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.end() }
        try? FileManager.default.removeItem(at: scriptURL)
    }

    /// Stops the server (closing its stdin, then ending it).
    package func stop() {
        try? input.fileHandleForWriting.close()
        process.end()
    }

    /// Every JSON line logged so far.
    package var events: [JSONValue] {
        output.lines.dropFirst().compactMap { try? JSONValue.parse($0) }
    }

    /// The logged events of kind `event` (`call`, `request`, `ping`, `clientEnded`, `connection`, `step`).
    package func events(_ kind: String) -> [JSONValue] {
        events.filter { $0["event"] == .string(kind) }
    }

    /// The ListenRequests (ProtoJSON) that call `call` (1, 2, ...) sent, in order.
    package func requests(call: Int) -> [JSONValue] {
        events("request").filter { $0["call"] == .integer(Int64(call)) }.compactMap { $0["request"] }
    }

    /// The requests of call `call` once at least `count` have been logged (waiting up to `timeout` seconds).
    package func requests(call: Int, atLeast count: Int, timeout: Double = 30) async -> [JSONValue] {
        _ = await wait(timeout: timeout) { _ in requests(call: call).count >= count }
        return requests(call: call)
    }

    /// How many Listen calls arrived.
    package var listenCalls: Int {
        events("call").count { $0["path"] == .string("/google.firestore.v1.Firestore/Listen") }
    }

    /// How many TCP connections were accepted.
    package var connections: Int { events("connection").count }

    /// What the server wrote on stderr (a script error, a traceback).
    package var stderr: String { String(decoding: errors.data, as: UTF8.self) }

    /// Waits up to `timeout` seconds until `condition` holds for the events; returns whether it did.
    package func wait(timeout: Double = 30, until condition: ([JSONValue]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if condition(events) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(events)
    }
}
