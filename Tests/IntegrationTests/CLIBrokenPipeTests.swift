import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tool when its output goes away: a closed stdout or stderr (`>&-`), a reader that stops reading
/// (`| head -n 2`), with SIGPIPE at its default or ignored (systemd's default for services). It ends with an
/// exit status, never a trap (before: exit 132 from a `try!` in Foundation's FileHandle.write), and a watch
/// ends as soon as its reader goes away, not at the next change.
@Suite(.timeLimit(.minutes(2))) struct CLIBrokenPipeTests {
    static let closedStdout = "error: cannot write to stdout: Bad file descriptor (errno 9)\n"

    @Test func aClosedStdoutEndsTheDryRunWithExit1AndOneLine() async throws {
        let child = try SpawnedProcess(arguments: ["query", "c", "--project", "demo-p", "--dry-run"], stdout: .closed)
        let exit = await child.exit(timeout: 60)
        #expect(exit == .exited(1))
        #expect(String(decoding: await child.stderr?.all() ?? Data(), as: UTF8.self) == Self.closedStdout)
    }

    @Test func aClosedStderrStillGivesAUsageErrorItsExit2() async throws {
        let child = try SpawnedProcess(arguments: ["query", "c", "--bogus"], stderr: .closed)
        #expect(await child.readToEnd() == "")
        #expect(await child.exit(timeout: 60) == .exited(2))
    }

    @Test func aClosedStdoutEndsGetQueryAndWatchWithExit1() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-closed")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("k/one").setData(["v": 1])
        let connection = ["--emulator", host, "--project", project]
        for arguments in [["get", "k/one"], ["query", "k"], ["watch", "k"], ["watch", "k", "--mode", "keys"]] {
            let child = try SpawnedProcess(arguments: arguments + connection, stdout: .closed)
            let exit = await child.exit(timeout: 60)
            #expect(exit == .exited(1), "\(arguments)")
            #expect(
                String(decoding: await child.stderr?.all() ?? Data(), as: UTF8.self) == Self.closedStdout,
                "\(arguments)")
        }
    }

    /// 300 documents of 2 kB: about 700 kB of output, far more than a pipe holds (64 kB), so the tool is still
    /// writing when its reader goes away.
    static func seedBig(_ label: String) async throws -> (host: String, project: String) {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID(label)
        let db = try Firestore.emulator(host: host, projectID: project)
        let batch = db.batch()
        let pad = String(repeating: "x", count: 2_000)
        for index in 0..<300 {
            try batch.setData(
                ["v": .integer(Int64(index)), "pad": .string(pad)],
                forDocument: db.document("big/d\(1000 + index)"))
        }
        try await batch.commit()
        return (host, project)
    }

    @Test(arguments: [false, true])
    func aQueryWhoseReaderGoesAwayEndsQuietly(ignoringSIGPIPE: Bool) async throws {
        let (host, project) = try await Self.seedBig(ignoringSIGPIPE ? "cli-epipe-ign" : "cli-epipe")
        let child = try SpawnedProcess(
            arguments: ["query", "big", "--emulator", host, "--project", project], ignoringSIGPIPE: ignoringSIGPIPE)
        let lines = await child.readLines(2, thenClose: true)
        #expect(lines.map { (try? JSONValue.parse($0))?["id"]?.stringValue } == ["d1000", "d1001"])
        let exit = await child.exit(timeout: 60)
        // SIGPIPE at its default ends any tool writing into a closed pipe; ignored, the write fails with EPIPE.
        #expect(exit == (ignoringSIGPIPE ? .exited(1) : .signaled(SIGPIPE)))
        #expect(String(decoding: await child.stderr?.all() ?? Data(), as: UTF8.self) == "")
    }

    @Test(arguments: [
        ("listen", false), ("listen", true), ("keys", false), ("keys", true),
    ])
    func aWatchEndsAtOnceWhenItsReaderGoesAway(mode: String, ignoringSIGPIPE: Bool) async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-head")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("k/one").setData(["v": 1])
        try await db.document("k/two").setData(["v": 2])
        let child = try SpawnedProcess(
            arguments: ["watch", "k", "--emulator", host, "--project", project, "--mode", mode],
            ignoringSIGPIPE: ignoringSIGPIPE)
        // `| head -n 2`: two lines of the first snapshot, then the reader goes away. Nothing changes after.
        let lines = await child.readLines(2, thenClose: true)
        let closed = ContinuousClock.now
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("snapshot 1 at ") == true)
        #expect(lines.dropFirst().first?.hasPrefix("  + added     one at 0") == true)
        let exit = await child.exit(timeout: 60)
        // Before, the watch waited for the next change, and none comes: the 60 s watchdog's SIGKILL (a hang guard)
        // fails the status check. How fast it ends is RELIABILITY.md's business (a few milliseconds; in the full
        // suite on 2 loaded cores all four cases once took 13.7 to 14.1 s), so it is printed, not judged.
        #expect(exit == (ignoringSIGPIPE ? .exited(1) : .signaled(SIGPIPE)))
        print("broken pipe (\(mode), ignoring SIGPIPE \(ignoringSIGPIPE)): ended \(ContinuousClock.now - closed) after")
        #expect(String(decoding: await child.stderr?.all() ?? Data(), as: UTF8.self) == "")
    }
}
