import FirestoreREST
import Foundation

/// `Scripts/grpc-script-server` on loopback: a real HTTP/2 gRPC server (Python's `h2`) that plays a script of Listen
/// responses and faults, encoding each message with Google's own protobuf runtime (`google-cloud-firestore`), and
/// logs what it receives (calls, requests decoded to ProtoJSON, PINGs, resets) as JSON lines.
///
/// The Python comes from `FIRESTORE_FEED_TEST_PYTHON` (Scripts/test sets it from `Scripts/test-python`), else from
/// `.build/test-venv` when it exists; without either the server does not start and says how to make it.
package final class ScriptedGRPCServer: Sendable {
    private let server: LoopbackPythonServer
    private let scriptURL: URL

    /// `127.0.0.1:PORT`.
    package var host: String { server.host }

    /// The interpreter with `h2` and `google-cloud-firestore`.
    package static func python() throws -> String {
        if let path = ProcessInfo.processInfo.environment["FIRESTORE_FEED_TEST_PYTHON"], !path.isEmpty { return path }
        let venv = PythonServerProcess.root.appendingPathComponent(".build/test-venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw PythonServerProcess.StartError(
                description: "no Python for the scripted gRPC server: run Scripts/test-python (Scripts/test does), "
                    + "or set FIRESTORE_FEED_TEST_PYTHON")
        }
        return venv
    }

    /// Starts the server with `script` (the JSON described in `Scripts/grpc-script-server`) and waits until it listens.
    package static func start(script: String) async throws -> ScriptedGRPCServer {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-script-\(UUID().uuidString).json")
        try Data(script.utf8).write(to: url)
        let server = try await LoopbackPythonServer.start(
            "grpc-script-server", arguments: ["--script", url.path], python: try python())
        return ScriptedGRPCServer(server: server, scriptURL: url)
    }

    private init(server: LoopbackPythonServer, scriptURL: URL) {
        self.server = server
        self.scriptURL = scriptURL
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: scriptURL)
    }

    /// Every JSON line logged so far.
    package var events: [JSONValue] { server.events }

    /// The logged events of kind `event` (`call`, `request`, `ping`, `clientEnded`, `connection`, `step`).
    package func events(_ kind: String) -> [JSONValue] { server.events(kind) }

    /// The ListenRequests (ProtoJSON) that call `call` (1, 2, ...) sent, in order.
    package func requests(call: Int) -> [JSONValue] {
        events("request").filter { $0["call"] == .integer(Int64(call)) }.compactMap { $0["request"] }
    }

    /// The requests of call `call` once at least `count` have been logged (waiting up to `timeout` seconds).
    package func requests(call: Int, atLeast count: Int, timeout: Double = 30) async -> [JSONValue] {
        _ = await server.wait(timeout: timeout) { requests(call: call).count >= count }
        return requests(call: call)
    }

    /// How many Listen calls arrived.
    package var listenCalls: Int {
        events("call").count { $0["path"] == .string("/google.firestore.v1.Firestore/Listen") }
    }

    /// How many Listen calls arrived, once at least `count` have been logged (waiting up to `timeout` seconds: the log
    /// is read from the server's stdout on a thread of its own and may lag behind what the client saw).
    package func listenCalls(atLeast count: Int, timeout: Double = 30) async -> Int {
        _ = await server.wait(timeout: timeout) { listenCalls >= count }
        return listenCalls
    }

    /// How many TCP connections were accepted.
    package var connections: Int { events("connection").count }

    /// What the server wrote on stderr (a script error, a traceback).
    package var stderr: String { server.stderr }

    /// Waits up to `timeout` seconds until `condition` holds for the events; returns whether it did.
    package func wait(timeout: Double = 30, until condition: ([JSONValue]) -> Bool) async -> Bool {
        await server.wait(timeout: timeout) { condition(server.events) }
    }
}
