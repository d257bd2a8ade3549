import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The soak driver behind `Scripts/soak` (the FirestoreSoak executable), in a short run: 80 polls through
/// the fault proxy (every read fault kind, as `Scripts/soak` uses them) while it writes. The feed's own behaviour under these faults is checked in detail by
/// `FeedModesLiveTests.feedThroughFaultsStaysTrue`; this keeps the soak tool itself working.
@Suite(.timeLimit(.minutes(5))) struct SoakDriverLiveTests {
    @Test(.timeLimit(.minutes(5))) func shortSoakPassesAndPrintsItsFigures() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let proxy = try await FaultProxy.start(
            target: host, rate: 0.2, seed: 9,
            faults: [
                "500", "503", "429", "reset", "truncate", "badjson", "html", "delay", "timeout", "trickle",
            ])
        defer { proxy.stop() }
        let result = try await CLIProcess.run(
            [
                "--emulator", host, "--proxy", proxy.host, "--proxy-log", proxy.logURL.path, "--polls", "80",
                // Resident memory is judged on `Scripts/soak`'s long runs; in 80 polls on a loaded machine the
                // runtime's threads and arenas can still be growing, so here its tolerance is wide (the line and the
                // figure must still be there).
                "--memory-baseline", "20", "--memory-tolerance", "1000", "--documents", "10", "--project",
                EmulatorEnvironment.uniqueProjectID("soak"),
            ],
            executable: CLIProcess.builtExecutable("FirestoreSoak"), timeout: 280)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.lines.last == "soak: PASS", "\(result.stdout)")
        let labels = result.lines.compactMap { line -> String? in
            guard line.hasPrefix("soak: ") else { return nil }
            return line.dropFirst(6).split(separator: " ").first.map(String.init)
        }
        for label in ["polls", "requests", "failed", "snapshots", "changes", "final", "spurious", "resident"] {
            #expect(labels.contains(label), "no \(label) line in \(result.stdout)")
        }
        #expect(result.lines.contains("soak: spurious changes      0"))
        let figures = try JSONValue.parse(try #require(result.lines.first { $0.hasPrefix("{") }))
        #expect(figures["passed"] == true)
        #expect(figures["finalEqualsDirectQuery"] == true)
        #expect(figures["spuriousChanges"] == 0)
        guard case .integer(let polls)? = figures["polls"], case .integer(let faults)? = figures["faults"] else {
            Issue.record("figures without polls or faults: \(figures)")
            return
        }
        #expect(polls >= 80)
        #expect(faults >= 5)
    }
}
