import FirestoreFeed
import FirestoreTesting

/// `demo --replay [FILE] [--speed X]`: the demo's scenario on a recorded session instead of an emulator
/// (``DemoReplay``).
struct DemoReplayOptions: Sendable {
    static let options: [OptionSpec] = [
        OptionSpec(
            "--replay", .optional("FILE"),
            help: """
                replay a recorded demo session, no emulator needed (default FILE:
                Recordings/demo-listen.json, with --mode keys Recordings/demo.json,
                here or above the executable); prints what the live demo printed,
                readTimes included
                """),
        .value(
            "--speed", "X",
            help: """
                with --replay: X times the recorded pace (1 = as recorded; default:
                as fast as possible)
                """),
    ]

    /// Whether `--replay` was given, with or without FILE.
    let isRequested: Bool
    /// FILE after `--replay=` and the positional arguments: at most one, the recording to replay.
    let files: [String]
    /// `--speed X` as a number, or `nil`.
    let speed: Double?

    /// - Throws: ``ValidationError`` for a bad `--speed`.
    init(parsing reader: ArgumentReader) throws(ValidationError) {
        let inline = reader.value("--replay")
        isRequested = reader.has("--replay") || inline != nil
        files = (inline.map { [$0] } ?? []) + reader.positionals
        speed = try reader.number("--speed", in: 0.01...1000)
    }

    /// - Parameter emulator: `--emulator` as given.
    /// - Throws: ``ValidationError`` for `--speed` without `--replay`, `--replay` with `--emulator`, more than
    ///   one FILE, or arguments without `--replay` (the demo takes none).
    func validate(emulator: String?) throws(ValidationError) {
        guard isRequested else {
            if speed != nil { throw ValidationError("--speed needs --replay") }
            if !files.isEmpty { throw ValidationError("demo takes no arguments") }
            return
        }
        guard emulator == nil else { throw ValidationError("--replay runs without an emulator: drop --emulator") }
        guard files.count <= 1 else { throw ValidationError("--replay takes one FILE") }
    }

    /// The recording, loaded, or `nil` without `--replay`.
    /// - Parameter source: the source `--mode` asks for, or `nil` for none.
    /// - Throws: ``CLIError/runtime(_:)`` when the recording is missing or malformed, or was recorded in another
    ///   mode than `source`.
    func load(source: FeedSource?) throws(CLIError) -> DemoReplay? {
        guard isRequested else { return nil }
        return try DemoReplay(
            file: files.first, pace: speed.map { .recorded(speed: $0) } ?? .instant, source: source)
    }
}
