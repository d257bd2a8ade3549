import FirestoreTesting
import Foundation

/// `--cassette FILE`, `--record-mode MODE` and `--allow-playback-repeats`, shared by `watch`, `query`, `get`,
/// `count` and `export`: record the command's HTTP exchanges to a cassette, or replay them from one with no
/// server at all (``FirestoreConnection`` chooses which).
package struct CassetteOptions: Sendable {
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

    /// No cassette: the options of a command that takes none.
    package static let none = CassetteOptions(path: nil, recordMode: nil, allowPlaybackRepeats: false)

    /// `--cassette FILE`.
    package let path: String?
    /// `--record-mode MODE` as given (``mode`` is the one in effect).
    package let recordMode: ReplayTransport.RecordMode?
    /// `--allow-playback-repeats`.
    package let allowPlaybackRepeats: Bool

    private init(path: String?, recordMode: ReplayTransport.RecordMode?, allowPlaybackRepeats: Bool) {
        self.path = path
        self.recordMode = recordMode
        self.allowPlaybackRepeats = allowPlaybackRepeats
    }

    /// - Throws: ``ValidationError`` for an empty FILE or an unknown mode.
    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        path = try reader.nonEmpty("--cassette", "a file name")
        if let text = reader.value("--record-mode") {
            guard let mode = ReplayTransport.RecordMode(rawValue: text) else {
                throw ValidationError("--record-mode \"\(text)\": expected once, none, all or new-episodes")
            }
            recordMode = mode
        } else {
            recordMode = nil
        }
        allowPlaybackRepeats = reader.has("--allow-playback-repeats")
    }

    /// - Throws: ``ValidationError`` for `--record-mode` or `--allow-playback-repeats` without `--cassette`.
    package func validate() throws(ValidationError) {
        guard path == nil else { return }
        if recordMode != nil { throw ValidationError("--record-mode needs --cassette FILE") }
        if allowPlaybackRepeats { throw ValidationError("--allow-playback-repeats needs --cassette FILE") }
    }

    /// The record mode in effect: `--record-mode`, else `once`.
    package var mode: ReplayTransport.RecordMode { recordMode ?? .once }

    /// The cassette to replay without any server: FILE in mode `none`, or in mode `once` when FILE exists.
    package var replayedPath: String? {
        guard let path, mode == .none || (mode == .once && FileManager.default.fileExists(atPath: path)) else {
            return nil
        }
        return path
    }

    /// How the cassette is replayed: `--allow-playback-repeats`, named so in the error of a request whose
    /// matches were all played.
    package var replayOptions: ReplayTransport.Options {
        ReplayTransport.Options(allowPlaybackRepeats: allowPlaybackRepeats).namingTheCommandLineOption()
    }
}
