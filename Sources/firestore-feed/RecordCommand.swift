import FirestoreREST
import Foundation

/// `firestore-feed record SCENARIO FILE`: runs one of the project's recording scenarios against a real
/// emulator through a ``RecordingTransport`` and saves the cassette (secrets scrubbed) to FILE. This is how
/// `Scripts/record` makes every file in `Recordings/`; FILE is written only when the whole scenario
/// behaved as expected.
enum RecordCommand {
    static let help = """
        USAGE: firestore-feed record SCENARIO FILE [options]

        Runs a built-in scenario against the emulator, recording every HTTP exchange, and saves
        the cassette to FILE (only when the scenario behaved as expected). Scripts/record runs
        them all on fresh emulators.

        SCENARIOS:
        \(RecordingScenarios.list)

        OPTIONS:
          --emulator HOST:PORT   Firestore emulator to use (default: $FIRESTORE_EMULATOR_HOST)
          -h, --help             show this help
        """

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, valueFlags: ["--emulator"], switchFlags: [], help: help)
        guard reader.positionals.count == 2 else { throw .usage("record needs SCENARIO and FILE", help: help) }
        let (name, path) = (reader.positionals[0], reader.positionals[1])
        guard let scenario = RecordingScenarios.Scenario(rawValue: name) else {
            throw .usage("unknown scenario \"\(name)\"", help: help)
        }
        let host = try ConnectionOptions(reader, help: help).host
        let recorder = RecordingTransport(wrapping: CurlTransport())
        do {
            try await RecordingScenarios.run(scenario, host: host, transport: recorder)
            try recorder.save(toFile: path)
        } catch let error as FirestoreError {
            throw .runtime(error)
        } catch {
            throw .runtime(FirestoreError(code: .unknown, message: "\(error)"))
        }
        Console.error("record: \(scenario.rawValue): \(recorder.recordedCount) interactions saved to \(path)")
    }
}
