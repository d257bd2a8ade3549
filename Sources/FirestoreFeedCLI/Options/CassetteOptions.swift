import FirestoreREST
import FirestoreTesting
import Foundation
import Synchronization

/// `--cassette FILE`, `--record-mode MODE` and `--allow-playback-repeats`, shared by `watch`, `query`, `get`,
/// `count` and `export`: record the command's HTTP exchanges to a cassette, or replay them from one with no
/// server at all.
package struct CassetteOptions {
    package static let options: [OptionSpec] = [
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
        .flag(
            "--allow-playback-repeats",
            help: "with --cassette: past the last matching response, repeat it instead of failing"),
    ]

    /// The client for a command: ``ConnectionOptions/firestore(_:help:transport:)`` without `--cassette`; with
    /// it, on a ``ReplayTransport`` over the file (which records through the emulator or production in the
    /// recording modes and adds each exchange to the file as it completes, so Ctrl-C or a kill keeps what was recorded).
    /// - Throws: ``CLIError/usage(_:help:)`` for a bad mode, `--record-mode` or `--allow-playback-repeats`
    ///   without `--cassette`, and the usage errors of the connection; ``CLIError/runtime(_:)`` for a missing
    ///   cassette in mode none or a malformed one, and the runtime errors of the connection.
    package static func firestore(_ reader: ArgumentReader, help: String) async throws(CLIError) -> Firestore {
        let repeats = reader.has("--allow-playback-repeats")
        guard let path = reader.value("--cassette") else {
            if reader.value("--record-mode") != nil { throw .usage("--record-mode needs --cassette FILE", help: help) }
            if repeats { throw .usage("--allow-playback-repeats needs --cassette FILE", help: help) }
            return try await ConnectionOptions.firestore(reader, help: help)
        }
        guard !path.isEmpty else { throw .usage("--cassette needs a file name", help: help) }
        let modeText = reader.value("--record-mode") ?? "once"
        guard let mode = ReplayTransport.RecordMode(rawValue: modeText) else {
            throw .usage("--record-mode \"\(modeText)\": expected once, none, all or new-episodes", help: help)
        }
        let options = ReplayTransport.Options(allowPlaybackRepeats: repeats).namingTheCommandLineOption()
        let replaysOnly = mode == .none || (mode == .once && FileManager.default.fileExists(atPath: path))
        if replaysOnly {
            return try replayClient(path: path, options: options, reader: reader, help: help)
        }
        return try await ConnectionOptions.firestore(reader, help: help) { (live) throws(CLIError) in
            do throws(FirestoreError) {
                let transport = try ReplayTransport(file: path, mode: mode, live: live, options: options)
                recordings.withLock { $0.append(transport) }
                return transport
            } catch {
                throw .runtime(error)
            }
        }
    }

    /// The transports of this process that may record, ended by ``finishRecordings()``.
    private static let recordings = Mutex<[ReplayTransport]>([])

    /// Ends every recording this process opened (``ReplayTransport/finishRecording()``): called before the tool
    /// exits, so that the exit never cuts a cassette file off in the middle of a write and the file says how its
    /// Listen calls ended. Returns the first failure.
    package static func finishRecordings() -> FirestoreError? {
        let transports = recordings.withLock { transports in
            defer { transports = [] }
            return transports
        }
        var failure: FirestoreError?
        for transport in transports {
            do throws(FirestoreError) {
                try transport.finishRecording()
            } catch {
                failure = failure ?? error
            }
        }
        return failure
    }

    /// A client that only replays `path`: no request leaves the process.
    private static func replayClient(
        path: String, options: ReplayTransport.Options, reader: ArgumentReader, help: String
    ) throws(CLIError) -> Firestore {
        let transport: ReplayTransport
        do {
            transport = try ReplayTransport(file: path, mode: .none, live: nil, options: options)
        } catch {
            throw .runtime(error)
        }
        let recorded = transport.cassette.database
        let projectID =
            reader.value("--project") ?? recorded?.projectID
            ?? ConnectionOptions.emulatorProject(reader, where: "to replay \(path) (it names none)")
        let databaseID = ConnectionOptions.optional(reader, "--database") ?? recorded?.databaseID ?? "(default)"
        do {
            return Firestore(
                database: try DatabaseID(projectID: projectID, databaseID: databaseID),
                baseURL: "http://replay.invalid/v1/", credentials: EmulatorOwnerCredentials(), transport: transport,
                isEmulator: true)
        } catch {
            throw .usage(error.message, help: help)
        }
    }
}
