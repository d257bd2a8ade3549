import FirestoreREST
import FirestoreTesting
import Foundation

/// `--cassette FILE` and `--record-mode MODE`, shared by `watch`, `query`, `get` and `count`: record the
/// command's HTTP exchanges to a cassette, or replay them from one with no emulator.
struct CassetteOptions {
    static let options: [OptionSpec] = [
        .value(
            "--cassette", "FILE",
            help: """
                record this session's requests to FILE, or replay them from it
                (no emulator needed to replay; the project defaults to the recorded one)
                """),
        .value(
            "--record-mode", "MODE",
            help: """
                with --cassette: once (default: record if FILE is missing, else replay),
                none (replay only), all (record again), new-episodes (replay what
                matches, record the rest)
                """),
    ]

    /// The client for a command: on the emulator of ``ConnectionOptions`` without `--cassette`; with it, on a
    /// ``ReplayTransport`` over the file (which records through the emulator in the recording modes and
    /// adds each exchange to the file as it completes, so Ctrl-C or a kill keeps what was recorded).
    /// - Throws: ``CLIError/usage(_:help:)`` for a bad mode, a missing emulator when recording, a malformed
    ///   host or project; ``CLIError/runtime(_:)`` for a missing cassette in mode none or a malformed one.
    static func firestore(_ reader: ArgumentReader, help: String) throws(CLIError) -> Firestore {
        guard let path = reader.value("--cassette") else {
            if reader.value("--record-mode") != nil { throw .usage("--record-mode needs --cassette FILE", help: help) }
            return try ConnectionOptions(reader, help: help).firestore(help: help)
        }
        guard !path.isEmpty else { throw .usage("--cassette needs a file name", help: help) }
        let modeText = reader.value("--record-mode") ?? "once"
        guard let mode = ReplayTransport.RecordMode(rawValue: modeText) else {
            throw .usage("--record-mode \"\(modeText)\": expected once, none, all or new-episodes", help: help)
        }
        let replaysOnly = mode == .none || (mode == .once && FileManager.default.fileExists(atPath: path))
        if replaysOnly {
            return try replayClient(path: path, reader: reader, help: help)
        }
        let connection = try ConnectionOptions(reader, help: help)
        let transport: ReplayTransport
        do {
            transport = try ReplayTransport(file: path, mode: mode, live: CurlTransport())
        } catch {
            throw .runtime(error)
        }
        do {
            return try Firestore.emulator(host: connection.host, projectID: connection.projectID, transport: transport)
        } catch {
            throw .usage(error.message, help: help)
        }
    }

    /// A client that only replays `path`: no request leaves the process.
    private static func replayClient(path: String, reader: ArgumentReader, help: String) throws(CLIError) -> Firestore {
        let transport: ReplayTransport
        do {
            transport = try ReplayTransport(file: path, mode: .none, live: nil)
        } catch {
            throw .runtime(error)
        }
        let recorded = transport.cassette.database
        let environment = ProcessInfo.processInfo.environment
        let projectID =
            reader.value("--project") ?? recorded?.projectID ?? environment["GCLOUD_PROJECT"] ?? "demo-project"
        do {
            return Firestore(
                database: try DatabaseID(projectID: projectID, databaseID: recorded?.databaseID ?? "(default)"),
                baseURL: "http://replay.invalid/v1/", credentials: EmulatorOwnerCredentials(), transport: transport,
                isEmulator: true)
        } catch {
            throw .usage(error.message, help: help)
        }
    }
}
