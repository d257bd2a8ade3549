import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Foundation

/// `demo --replay [FILE] [--speed X]`: the demo's scenario on a recorded session instead of an emulator.
///
/// The scenario runs exactly as live (the same writes through the library, the same feed) on a
/// ``ReplayTransport`` in session order, so every request, the writes included, gets its recorded response
/// in recorded order, the Listen stream gets its recorded responses, and the output (readTimes included) is
/// what the recording printed. A polling feed polls on an ``ImmediateClock``; the pace comes from the
/// transport: instant, or the recorded moments scaled.
struct DemoReplay {
    /// The recordings' default places, relative to the working folder or a folder above the executable: the
    /// Listen session, and the polling one (`--mode keys`).
    static let defaultListenPath = "Recordings/demo-listen.json"
    static let defaultKeysPath = "Recordings/demo.json"

    let path: String
    let transport: ReplayTransport
    /// How the replayed demo watches, as it was recorded: listen when the cassette holds a Listen session, else
    /// keys.
    let source: FeedSource

    /// Loads `file`, else the default recording for `source` (``findDefault(_:)``).
    /// - Parameter source: the source `--mode` asks for, or `nil` for none.
    /// - Throws: ``CLIError/runtime(_:)`` when the cassette is missing or malformed, or was recorded in another
    ///   mode than `source` asks for.
    init(file: String?, pace: ReplayTransport.Pace, source: FeedSource?) throws(CLIError) {
        let defaultPath = source == .poll(.keys) ? Self.defaultKeysPath : Self.defaultListenPath
        guard let path = file ?? Self.findDefault(defaultPath) else {
            throw .runtime(
                FirestoreError(
                    code: .notFound,
                    message: "no \(defaultPath) in the working folder or above the executable; pass --replay FILE"))
        }
        self.path = path
        do {
            transport = try ReplayTransport(
                file: path, mode: .none, live: nil,
                options: ReplayTransport.Options(ordering: .session, pace: pace).namingTheCommandLineOption())
        } catch {
            throw .runtime(error)
        }
        let recorded: FeedSource = transport.cassette.listenSessions.isEmpty ? .poll(.keys) : .listen
        if let source, source != recorded {
            throw .runtime(
                FirestoreError(
                    code: .failedPrecondition,
                    message: recorded == .listen
                        ? "\(path) is a recorded Listen session: replay it with --mode listen (or without --mode)"
                        : "\(path) holds no recorded Listen session: replay it with --mode keys (or without --mode)"))
        }
        self.source = recorded
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
    func client() throws(CLIError) -> Firestore {
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
        return Firestore.replaying(transport, database: database)
    }

    /// `relativePath` (e.g. `Recordings/demo.json`) in the working folder, else in the nearest folder above the
    /// executable that has one (the package root, for a tool built with `swift build`).
    static func findDefault(_ relativePath: String) -> String? {
        let manager = FileManager.default
        let here = manager.currentDirectoryPath + "/" + relativePath
        if manager.fileExists(atPath: here) { return relativePath }
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        var folder = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<8 {
            let candidate = folder.appendingPathComponent(relativePath).path
            if manager.fileExists(atPath: candidate) { return candidate }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }
}
