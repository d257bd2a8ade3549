import FirestoreFeedCLI
import FirestoreREST
import FirestoreTesting
import Foundation

/// `RecordRecordings SCENARIO FILE`: runs one of the project's recording scenarios against a real emulator
/// through a ``RecordingTransport`` (which also records Listen calls) and saves the cassette (secrets scrubbed)
/// to FILE. This is how
/// `Scripts/record` makes every file in `Recordings/`; FILE is written only when the whole scenario
/// behaved as expected. A developer tool of this repository, not part of the shipped `firestore-feed`.
enum RecordCommand {
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
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 2 else { throw .usage("record needs SCENARIO and FILE", help: help) }
        let (name, path) = (reader.positionals[0], reader.positionals[1])
        guard let scenario = RecordingScenarios.Scenario(rawValue: name) else {
            throw .usage("unknown scenario \"\(name)\"", help: help)
        }
        let host = try ConnectionOptions(reader, help: help).host
        let proxy = reader.value("--fault-proxy")
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
