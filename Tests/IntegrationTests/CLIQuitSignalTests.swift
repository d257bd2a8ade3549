import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tool on SIGQUIT (Ctrl-\): it ends with exit 131, as SIGINT ends it (130). Before, the Swift runtime's
/// backtracer caught SIGQUIT and the process stayed in `sigsuspend`, holding its connection. SIGTERM ends a watch
/// gracefully (the snapshot in hand finished, exit 0), as a service manager expects.
@Suite(.timeLimit(.minutes(2))) struct CLIQuitSignalTests {
    @Test(arguments: [
        (SIGQUIT, SpawnedProcess.Exit.exited(131)), (SIGINT, .signaled(SIGINT)), (SIGTERM, .exited(0)),
    ])
    func aWatchEndsOnTheSignal(signal: Int32, expected: SpawnedProcess.Exit) async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-quit")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("k/one").setData(["v": 1])
        let child = try SpawnedProcess(arguments: ["watch", "k", "--emulator", host, "--project", project])
        // The first snapshot is printed: the watch holds its Listen stream, waiting for changes.
        let lines = await child.readLines(3, thenClose: false)
        #expect(lines.first?.hasPrefix("snapshot 1 at ") == true)
        #expect(lines.dropFirst().first == #"  + added     one at 0  {"v":1}"#)
        child.send(signal)
        let sent = ContinuousClock.now
        let exit = await child.exit(timeout: 60)
        // Before the fix SIGQUIT never ended it (the 60 s watchdog's SIGKILL, a hang guard, fails the status check).
        // How fast it ends is RELIABILITY.md's business (3.3 ms median, release build; in the full suite on 2 cores
        // all three cases once took 10.1 s together), so it is printed, not judged.
        #expect(exit == expected)
        print("signal \(signal): the watch ended \(ContinuousClock.now - sent) after it")
        #expect(String(decoding: await child.stderr?.all() ?? Data(), as: UTF8.self) == "")
    }
}
