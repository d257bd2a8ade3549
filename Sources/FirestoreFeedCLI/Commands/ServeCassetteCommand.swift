import FirestoreREST
import FirestoreTesting
import Foundation

/// `firestore-feed serve-cassette FILE --port N`: serves a cassette over HTTP on 127.0.0.1, so any client
/// pointed at it (`FIRESTORE_EMULATOR_HOST=127.0.0.1:N`) replays the recorded session.
enum ServeCassetteCommand {
    static let spec = CommandSpec(
        usage: ["serve-cassette FILE [options]"],
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
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 1, let path = reader.positionals.first else {
            throw .usage("serve-cassette needs exactly one FILE", help: help)
        }
        var port = 0
        if let text = reader.value("--port") {
            guard let number = Int(text), (0...65_535).contains(number) else {
                throw .usage("--port \"\(text)\": expected a number from 0 to 65535", help: help)
            }
            port = number
        }
        var pace = ReplayTransport.Pace.instant
        if let text = reader.value("--speed") {
            guard let speed = Double(text), speed.isFinite, speed >= 0.01, speed <= 1000 else {
                throw .usage("--speed \"\(text)\": expected a number from 0.01 to 1000", help: help)
            }
            pace = .recorded(speed: speed)
        }
        let limits = try limits(reader)
        let server: CassetteHTTPServer
        do {
            let transport = try ReplayTransport(
                file: path, mode: .none, live: nil,
                options: .init(allowPlaybackRepeats: reader.has("--allow-playback-repeats"), pace: pace))
            server = try CassetteHTTPServer(transport: transport, port: port, limits: limits)
        } catch {
            throw .runtime(error)
        }
        Console.error(
            "serve-cassette: \(path) (\(server.transport.cassette.interactions.count) interactions) "
                + "on http://127.0.0.1:\(server.port); Ctrl-C stops")
        await Console.output("127.0.0.1:\(server.port)")
        // The accept loop blocks, so it runs on a thread of its own; this task waits (suspended, holding no
        // thread of the cooperative pool, which answers the requests) until the process is ended by a signal.
        let acceptor = Thread { server.run() }
        acceptor.name = "serve-cassette accept"
        acceptor.start()
        while true { try? await Task.sleep(for: .seconds(3_600)) }
    }

    /// `--max-connections`, `--max-body-bytes` and `--idle-timeout` over ``CassetteHTTPServer/Limits/standard``.
    static func limits(_ reader: ArgumentReader) throws(CLIError) -> CassetteHTTPServer.Limits {
        var limits = CassetteHTTPServer.Limits.standard
        if let text = reader.value("--max-connections") {
            guard let number = Int(text), (1...10_000).contains(number) else {
                throw .usage("--max-connections \"\(text)\": expected a number from 1 to 10000", help: help)
            }
            limits.maxConnections = number
        }
        if let text = reader.value("--max-body-bytes") {
            guard let number = Int(text), (0...1 << 30).contains(number) else {
                throw .usage("--max-body-bytes \"\(text)\": expected a number from 0 to 1073741824", help: help)
            }
            limits.maxBodyBytes = number
        }
        if let text = reader.value("--idle-timeout") {
            guard let seconds = SecondsArgument.seconds(text), seconds >= 0.01, seconds <= 86_400 else {
                throw .usage("--idle-timeout \"\(text)\": expected seconds from 0.01 to 86400", help: help)
            }
            limits.idleTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        return limits
    }
}
