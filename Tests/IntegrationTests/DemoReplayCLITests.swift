import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `firestore-feed demo --replay`: the demo on `Recordings/demo-listen.json` (the Listen stream, the default) or
/// `Recordings/demo.json` (`--mode keys`) with no emulator prints the same change list as the live demo.
@Suite(.timeLimit(.minutes(2))) struct DemoReplayCLITests {
    static let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Recordings")
    static let recording = recordings.appendingPathComponent("demo.json").path
    static let listenRecording = recordings.appendingPathComponent("demo-listen.json").path

    /// The text output with every `at <readTime>` cut, since live times differ from recorded ones.
    static func withoutTimes(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix("snapshot "), let at = line.range(of: " at "),
                let colon = line.range(of: ": ", range: at.upperBound..<line.endIndex)
            else { return String(line) }
            return String(line[..<at.lowerBound]) + String(line[colon.lowerBound...])
        }.joined(separator: "\n")
    }

    static let expectedText = """
        seeded 4 fruits: apple, banana, cherry, date
        watching: fruits where isFavourite == true, ordered by name
        snapshot 1: 3 documents, 3 changes
          + added     apple at 0  {"calories":52,"color":"red","isFavourite":true,"name":"Apple"}
          + added     banana at 1  {"calories":89,"color":"yellow","isFavourite":true,"name":"Banana"}
          + added     date at 2  {"calories":282,"color":"brown","isFavourite":true,"name":"Date"}
          list: [apple, banana, date]

        > add a favourite: fig
        snapshot 2: 4 documents, 1 change
          + added     fig at 3  {"calories":74,"color":"purple","isFavourite":true,"name":"Fig"}
          list: [apple, banana, date, fig]

        > modify apple: color red -> green
        snapshot 3: 4 documents, 1 change
          ~ modified  apple at 0  {"calories":52,"color":"green","isFavourite":true,"name":"Apple"}
          list: [apple, banana, date, fig]

        > rename banana to 'Plantain' (moves it after Fig)
        snapshot 4: 4 documents, 1 change
          ~ modified  banana moved 1 -> 3  {"calories":89,"color":"yellow","isFavourite":true,"name":"Plantain"}
          list: [apple, date, fig, banana]

        > unfavourite date (it leaves the query)
        snapshot 5: 3 documents, 1 change
          - removed   date from 1
          list: [apple, fig, banana]

        > delete fig
        snapshot 6: 2 documents, 1 change
          - removed   fig from 1
          list: [apple, banana]

        done: 6 snapshots

        """

    @Test func offlineAndLivePrintTheSameChangeList() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("demo-live")
        // Live, the demo listens (the default mode); --mode keys polls. The recordings seeded `fruits` (their
        // first request lists it), so the live runs are told the same collection.
        let live = try await CLIProcess.run([
            "demo", "--emulator", host, "--project", project, "--collection", "fruits",
        ])
        #expect(live.status == 0, "stderr: \(live.stderr)")
        #expect(live.stderr.isEmpty, "no fallback note: \(live.stderr)")
        let polled = try await CLIProcess.run([
            "demo", "--emulator", host, "--project", project + "-k", "--mode", "keys", "--collection", "fruits",
        ])
        #expect(polled.status == 0, "stderr: \(polled.stderr)")
        // Offline: the Listen recording (FILE holds a Listen session, so the demo listens) and the polling one.
        let offline = try await CLIProcess.run(["demo", "--replay", Self.listenRecording])
        #expect(offline.status == 0, "stderr: \(offline.stderr)")
        #expect(offline.stderr == "demo: replaying \(Self.listenRecording) (a recorded session; no emulator)\n")
        let offlinePolled = try await CLIProcess.run(["demo", "--replay", Self.recording])
        #expect(offlinePolled.status == 0, "stderr: \(offlinePolled.stderr)")
        #expect(offlinePolled.stderr == "demo: replaying \(Self.recording) (a recorded session; no emulator)\n")
        #expect(Self.withoutTimes(live.stdout) == Self.expectedText)
        #expect(Self.withoutTimes(polled.stdout) == Self.expectedText)
        #expect(Self.withoutTimes(offline.stdout) == Self.expectedText)
        #expect(Self.withoutTimes(offlinePolled.stdout) == Self.expectedText)

        let liveLines = try await CLIProcess.run([
            "demo", "--emulator", host, "--project", project + "-j", "--format", "jsonl", "--collection", "fruits",
        ])
        let offlineLines = try await CLIProcess.run(["demo", "--replay=\(Self.listenRecording)", "--format", "jsonl"])
        #expect(liveLines.status == 0 && offlineLines.status == 0)
        #expect(liveLines.lines.count == 6)
        #expect(try liveLines.lines.map(CLILiveTests.stable) == offlineLines.lines.map(CLILiveTests.stable))
    }

    @Test func replayIsDeterministicAndFindsTheDefaultRecording() async throws {
        // No FILE: Recordings/demo-listen.json above the executable, or Recordings/demo.json with --mode keys.
        // Recorded readTimes make two runs identical, whatever the speed.
        let first = try await CLIProcess.run(["demo", "--replay"])
        let second = try await CLIProcess.run(["demo", "--replay", "--speed", "100"])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(
            first.stderr.hasSuffix("Recordings/demo-listen.json (a recorded session; no emulator)\n"), "\(first.stderr)"
        )
        #expect(first.stdout == second.stdout)
        #expect(Self.withoutTimes(first.stdout) == Self.expectedText)
        #expect(first.stdout.contains("snapshot 1 at 20"))
        let keys = try await CLIProcess.run(["demo", "--replay", "--mode", "keys"])
        #expect(keys.status == 0, "stderr: \(keys.stderr)")
        #expect(keys.stderr.hasSuffix("Recordings/demo.json (a recorded session; no emulator)\n"), "\(keys.stderr)")
        #expect(Self.withoutTimes(keys.stdout) == Self.expectedText)
        #expect(keys.stdout != first.stdout)  // two recordings: their readTimes differ
    }

    @Test func aRecordingReplaysOnlyInTheModeItWasRecordedIn() async throws {
        let listen = try await CLIProcess.run(["demo", "--replay", Self.recording, "--mode", "listen"])
        #expect(listen.status == 1)
        #expect(
            listen.stderr
                == "error: failed-precondition: \(Self.recording) holds no recorded Listen session: replay it with"
                + " --mode keys (or without --mode)\n")
        let keys = try await CLIProcess.run(["demo", "--replay", Self.listenRecording, "--mode", "keys"])
        #expect(keys.status == 1)
        #expect(
            keys.stderr
                == "error: failed-precondition: \(Self.listenRecording) is a recorded Listen session: replay it with"
                + " --mode listen (or without --mode)\n")
    }

    @Test func replayUsageErrors() async throws {
        let cases: [([String], String)] = [
            (["demo", "--replay", "--emulator", "h:1"], "error: --replay runs without an emulator: drop --emulator"),
            (["demo", "--replay", "a.json", "b.json"], "error: --replay takes one FILE"),
            (["demo", "--speed", "2"], "error: --speed needs --replay"),
            (["demo", "--replay", "--speed", "0"], "error: --speed \"0\": expected a number from 0.01 to 1000"),
            (["demo", "extra"], "error: demo takes no arguments"),
            (["demo", "--mode", "full"], "error: --mode \"full\": expected listen or keys"),
        ]
        for (arguments, message) in cases {
            let result = try await CLIProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(
                result.stderr == message + "\nsee 'firestore-feed help demo'\n", "\(arguments): \(result.stderr)")
        }
        let missing = try await CLIProcess.run(["demo", "--replay", "/nonexistent/demo.json"])
        #expect(missing.status == 1)
        #expect(
            missing.stderr
                == "error: not-found: no cassette at /nonexistent/demo.json (record mode none only replays)\n")
    }
}
