import FirestoreREST
import FirestoreTesting
import Foundation

/// `demo --replay [FILE] [--speed X]`: the demo's scenario on a recorded session instead of an emulator.
///
/// The scenario runs exactly as live (the same writes through the library, the same polling feed) on a
/// ``ReplayTransport`` in session order, so every request, the writes included, gets its recorded response
/// in recorded order, and the output (readTimes included) is what the recording printed. The feed polls on
/// an ``ImmediateClock``; the pace comes from the transport: instant, or the recorded moments scaled.
struct DemoReplay {
    static let options: [OptionSpec] = [
        OptionSpec(
            "--replay", .optional("FILE"),
            help: """
                replay a recorded demo session, no emulator needed (default FILE:
                Recordings/demo.json here or above the executable); prints what the
                live demo printed, readTimes included
                """),
        .value(
            "--speed", "X",
            help: """
                with --replay: X times the recorded pace (1 = as recorded; default:
                as fast as possible)
                """),
    ]

    /// The recording's default place, relative to the working folder or a folder above the executable.
    static let defaultRelativePath = "Recordings/demo.json"

    let path: String
    let transport: ReplayTransport

    /// `nil` when `--replay` was not given.
    /// - Throws: ``CLIError/usage(_:help:)`` for a bad `--speed`, more than one FILE, `--emulator` with
    ///   `--replay`; ``CLIError/runtime(_:)`` when the cassette is missing or malformed.
    init?(_ reader: ArgumentReader, help: String) throws(CLIError) {
        let speedText = reader.value("--speed")
        guard reader.has("--replay") || reader.value("--replay") != nil else {
            if speedText != nil { throw .usage("--speed needs --replay", help: help) }
            return nil
        }
        guard reader.value("--emulator") == nil else {
            throw .usage("--replay runs without an emulator: drop --emulator", help: help)
        }
        var files = reader.positionals
        if let inline = reader.value("--replay") { files.insert(inline, at: 0) }
        guard files.count <= 1 else { throw .usage("--replay takes one FILE", help: help) }
        var pace = ReplayTransport.Pace.instant
        if let speedText {
            guard let speed = Double(speedText), speed.isFinite, speed >= 0.01, speed <= 1000 else {
                throw .usage("--speed \"\(speedText)\": expected a number from 0.01 to 1000", help: help)
            }
            pace = .recorded(speed: speed)
        }
        guard let path = files.first ?? Self.findDefault() else {
            throw .runtime(
                FirestoreError(
                    code: .notFound,
                    message:
                        "no \(Self.defaultRelativePath) in the working folder or above the executable; pass --replay FILE"
                ))
        }
        self.path = path
        do {
            transport = try ReplayTransport(
                file: path, mode: .none, live: nil, options: .init(ordering: .session, pace: pace))
        } catch {
            throw .runtime(error)
        }
    }

    /// The collection the recordings of `Scripts/record` seed.
    package static let recordingsCollection = "fruits"

    /// The collection the recorded demo seeded: the one its first request (the listing of the old documents,
    /// `GET .../documents/COLLECTION`) names, else ``recordingsCollection``.
    var recordedCollection: String {
        guard let first = transport.cassette.interactions.first?.request.path,
            let range = first.range(of: "/documents/")
        else { return Self.recordingsCollection }
        let rest = first[range.upperBound...].prefix { $0 != "?" }
        return rest.isEmpty || rest.contains("/") ? Self.recordingsCollection : String(rest)
    }

    /// The client on the replaying transport, for the recorded project (`demo-fruits` if none is named).
    func firestore() throws(CLIError) -> Firestore {
        let database: DatabaseID
        if let recorded = transport.cassette.database {
            database = recorded
        } else {
            do {
                database = try DatabaseID(projectID: "demo-fruits")
            } catch {
                throw .runtime(error)
            }
        }
        return Firestore(
            database: database, baseURL: "http://replay.invalid/v1/", credentials: EmulatorOwnerCredentials(),
            transport: transport, isEmulator: true)
    }

    /// `Recordings/demo.json` in the working folder, else in the nearest folder above the executable that has
    /// one (the package root, for a tool built with `swift build`).
    static func findDefault() -> String? {
        let manager = FileManager.default
        let here = manager.currentDirectoryPath + "/" + defaultRelativePath
        if manager.fileExists(atPath: here) { return defaultRelativePath }
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        var folder = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<8 {
            let candidate = folder.appendingPathComponent(defaultRelativePath).path
            if manager.fileExists(atPath: candidate) { return candidate }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }
}
