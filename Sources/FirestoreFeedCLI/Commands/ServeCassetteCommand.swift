import FirestoreREST
import FirestoreTesting
import Foundation

/// `firestore-feed serve-cassette FILE --port N`: serves a cassette over HTTP on 127.0.0.1, so any client
/// pointed at it (`FIRESTORE_EMULATOR_HOST=127.0.0.1:N`) replays the recorded session.
package struct ServeCassetteCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "serve-cassette",
        usage: ["FILE [options]"],
        summary: "serve a recorded cassette over HTTP on 127.0.0.1",
        abstract: """
            Serves the cassette FILE over HTTP on 127.0.0.1 until stopped (Ctrl-C): every request gets
            its recorded response (matched on method, path, query and JSON body; identical requests in
            recorded order). Point any client at it, e.g. FIRESTORE_EMULATOR_HOST=127.0.0.1:PORT.
            Prints "127.0.0.1:PORT" on stdout once listening. A request the cassette cannot answer
            gets HTTP 400 FAILED_PRECONDITION naming the closest recorded request. A request with
            malformed or ambiguous framing (two Content-Length headers, Content-Length with
            Transfer-Encoding, no Host) gets 400 and its connection is closed (RFC 9112).
            """,
        options: [
            .value("--port", "N", help: "port to listen on (default 0: a free port, printed)"),
            .flag("--allow-playback-repeats", help: "past the last matching response, repeat it instead of failing"),
            .value("--speed", "X", help: "answer at X times the recorded pace (default: at once)"),
            .value(
                "--max-connections", "N",
                help: "serve at most N connections at once; one more gets 503 (default 32)"),
            .value(
                "--max-body-bytes", "N",
                help: "answer 413 to a request body over N bytes (default 10485760: 10 MiB)"),
            .value(
                "--idle-timeout", "S",
                help: "close a connection silent for S seconds (408 inside a request; default 30)"),
        ])

    /// The cassette FILE.
    let path: String
    /// `--port N`; 0 for a free port.
    let port: Int
    /// `--speed X`: the recorded pace scaled, or at once.
    let pace: ReplayTransport.Pace
    /// `--allow-playback-repeats`.
    let allowPlaybackRepeats: Bool
    /// `--max-connections`, `--max-body-bytes` and `--idle-timeout` over ``CassetteHTTPServer/Limits/standard``.
    let limits: CassetteHTTPServer.Limits

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        guard reader.positionals.count == 1, let path = reader.positionals.first else {
            throw ValidationError("serve-cassette needs exactly one FILE")
        }
        self.path = path
        port = try reader.integer("--port", in: 0...65_535) ?? 0
        pace = try reader.number("--speed", in: 0.01...1000).map { .recorded(speed: $0) } ?? .instant
        allowPlaybackRepeats = reader.has("--allow-playback-repeats")
        var limits = CassetteHTTPServer.Limits.standard
        limits.maxConnections = try reader.integer("--max-connections", in: 1...10_000) ?? limits.maxConnections
        limits.maxBodyBytes = try reader.integer("--max-body-bytes", in: 0...1 << 30) ?? limits.maxBodyBytes
        limits.idleTimeout = try reader.seconds("--idle-timeout", in: 0.01...86_400) ?? limits.idleTimeout
        self.limits = limits
    }

    package func run() async throws(CLIError) {
        let server: CassetteHTTPServer
        do {
            let transport = try ReplayTransport(
                file: path, mode: .none, live: nil,
                options: .init(allowPlaybackRepeats: allowPlaybackRepeats, pace: pace))
            server = try CassetteHTTPServer(transport: transport, port: port, limits: limits)
        } catch {
            throw .runtime(error)
        }
        // The accept loop blocks, so it runs on a thread of its own, started before the address is printed (a
        // client that reads the address finds every thread of the idle server there); this task waits
        // (suspended, holding no thread of the cooperative pool, which answers the requests) until the process
        // is ended by a signal.
        let acceptor = Thread { server.run() }
        acceptor.name = "serve-cassette accept"
        acceptor.start()
        Console.error(
            "serve-cassette: \(path) (\(server.transport.cassette.interactions.count) interactions) "
                + "on http://127.0.0.1:\(server.port); Ctrl-C stops")
        await Console.output("127.0.0.1:\(server.port)")
        while true { try? await Task.sleep(for: .seconds(3_600)) }
    }
}
