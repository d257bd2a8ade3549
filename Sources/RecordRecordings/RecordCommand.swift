import FirestoreFeedCLI
import FirestoreREST
import FirestoreTesting
import Foundation

/// `RecordRecordings SCENARIO FILE`: runs one of the project's recording scenarios against a real emulator
/// through a ``RecordingTransport`` (which also records Listen calls) and saves the cassette (secrets scrubbed)
/// to FILE. This is how
/// `Scripts/record` makes every file in `Recordings/`; FILE is written only when the whole scenario
/// behaved as expected. A developer tool of this repository, not part of the shipped `firestore-feed`.
struct RecordCommand: ParsableCommand {
    static let spec = CommandSpec(
        tool: "RecordRecordings",
        usage: ["SCENARIO FILE [options]"],
        abstract: """
            Runs a built-in scenario against the emulator, recording every HTTP exchange, and saves
            the cassette to FILE (only when the scenario behaved as expected). Scripts/record runs
            them all on fresh emulators.
            """,
        sections: "SCENARIOS:\n" + RecordingScenarios.list,
        options: [
            ConnectionOptions.emulatorOption,
            .value(
                "--fault-proxy", "HOST:PORT",
                help: "Scripts/fault-proxy in front of the emulator (the failures scenario)"),
        ])

    let scenario: RecordingScenarios.Scenario
    /// Where the cassette is saved.
    let path: String
    /// The emulator's `HOST:PORT`.
    let host: String
    /// `--fault-proxy HOST:PORT`.
    let proxy: String?

    init(parsing reader: ArgumentReader) throws(ValidationError) {
        guard reader.positionals.count == 2 else { throw ValidationError("record needs SCENARIO and FILE") }
        let name = reader.positionals[0]
        guard let scenario = RecordingScenarios.Scenario(rawValue: name) else {
            throw ValidationError("unknown scenario \"\(name)\"")
        }
        self.scenario = scenario
        path = reader.positionals[1]
        host = try ConnectionOptions(parsing: reader).requiredEmulatorHost()
        proxy = reader.value("--fault-proxy")
    }

    func run() async throws(CLIError) {
        let live = scenario == .failures ? FailuresScenario.liveTransport(proxy: proxy) : CurlTransport()
        let recorder = RecordingTransport(wrapping: live)
        try await CLIError.runtimeErrors {
            try await RecordingScenarios.run(scenario, host: host, proxy: proxy, transport: recorder)
            let cassette = recorder.cassette
            if scenario == .demoListen {
                try RecordingScenarios.checkListenSessions(cassette)
            }
            if scenario == .failures {
                try FailuresScenario.check(cassette)
            }
            try cassette.write(toFile: path)
        }
        let sessions = recorder.cassette.listenSessions.count
        Console.error(
            "record: \(scenario.rawValue): \(recorder.recordedCount) interactions"
                + (sessions == 0 ? "" : " and \(sessions) Listen session\(sessions == 1 ? "" : "s")")
                + " saved to \(path)")
    }
}
