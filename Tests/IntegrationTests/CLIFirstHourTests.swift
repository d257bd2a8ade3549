import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The frictions of a new user's first hour, as the built tool prints them: a malformed project ID refused before
/// anything is sent, "did you mean" for a mistyped command or option, an unquoted `--where`, the project named when
/// nothing is found, and how to start the emulator when nothing listens at its address.
@Suite(.timeLimit(.minutes(2))) struct CLIFirstHourTests {
    /// The hint after a refused connection to the emulator at `host`.
    static func startTheEmulatorHint(_ host: String) -> String {
        "hint: nothing listens at \(host): start the emulator there (gcloud emulators firestore start "
            + "--host-port=\(host); in a checkout of firestore-feed, Scripts/emulator start prints the address it "
            + "chose), or point --emulator or FIRESTORE_EMULATOR_HOST at the one running"
    }

    @Test(
        arguments: [
            (
                ["count", "fruits", "--project", "My_Project", "--emulator", "127.0.0.1:1"],
                #"error: invalid project ID "My_Project" (from --project): the emulator takes project IDs of lower-case "#
                    + #"letters, digits and hyphens, such as demo-fruits (did you mean "my-project"?)"#
                    + "\nsee 'firestore-feed help count'\n"
            ),
            (
                ["wacth", "fruits"],
                #"error: unknown command "wacth" (did you mean "watch"?)"# + "\nsee 'firestore-feed help'\n"
            ),
            (
                ["help", "qurey"],
                #"error: unknown command "qurey" (did you mean "query"?)"# + "\nsee 'firestore-feed help'\n"
            ),
            (
                ["query", "fruits", "--order", "name", "--emulator", "127.0.0.1:1"],
                "error: unknown option --order (did you mean --order-by?)\nsee 'firestore-feed help query'\n"
            ),
            (
                ["watch", "fruits", "--start", "1", "--emulator", "127.0.0.1:1"],
                "error: unknown option --start (did you mean --start-at or --start-after?)\n"
                    + "see 'firestore-feed help watch'\n"
            ),
            (
                ["query", "fruits", "--where", "isFavourite", "==", "true", "--emulator", "127.0.0.1:1"],
                "error: query needs exactly one COLLECTION_PATH, got 3 (fruits == true): quote each --where clause as one "
                    + "argument: --where 'isFavourite == true'\nsee 'firestore-feed help query'\n"
            ),
            (
                ["query", "fruits", "--where", "color", "==", "red", "--emulator", "127.0.0.1:1"],
                "error: query needs exactly one COLLECTION_PATH, got 3 (fruits == red): quote each --where clause as one "
                    + "argument: --where 'color == \"red\"'\nsee 'firestore-feed help query'\n"
            ),
            (
                ["query", "fruits", "--ordr", "name", "--emulator", "127.0.0.1:1"],
                "error: unknown option --ordr (did you mean --order-by?)\nsee 'firestore-feed help query'\n"
            ),
        ] as [([String], String)])
    func aMistakeIsNamedBeforeAnythingIsSent(arguments: [String], stderr: String) async throws {
        let result = try await CLIProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == stderr)
    }

    @Test func aProductionProjectIDFollowsGoogleCloudsRule() async throws {
        let home = try CLIEnvironment.emptyHome("project-id")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await CLIConnectionTests.run(
            ["get", "c/d", "--project", "app"], CLIEnvironment.production(home: home.path))
        #expect(result.status == 2)
        #expect(
            result.stderr
                == #"error: invalid project ID "app" (from --project): a Firestore project ID is 6 to 30 lower-case "#
                + "letters, digits and hyphens, starting with a letter\nsee 'firestore-feed help get'\n")
    }

    @Test func nothingFoundNamesTheProjectAsked() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("first-hour")
        let place = #"project "\#(project)", database (default), on the emulator at \#(host)"#
        let count = try await CLIProcess.run(["count", "fruits", "--emulator", host, "--project", project])
        #expect(count.status == 0)
        #expect(count.stdout == "0\n")
        #expect(count.stderr == "note: no documents matched in \(place)\n")
        let query = try await CLIProcess.run(["query", "fruits", "--emulator", host, "--project", project])
        #expect(query.status == 0)
        #expect(query.stdout == "")
        #expect(query.stderr == "note: no documents matched in \(place)\n")
        let get = try await CLIProcess.run(["get", "fruits/apple", "--emulator", host, "--project", project])
        #expect(get.status == 1)
        #expect(get.stderr == "error: not-found: no document at fruits/apple\nnote: in \(place)\n")
        let watch = try await CLIProcess.run([
            "watch", "fruits", "--emulator", host, "--project", project, "--count", "1", "--format", "jsonl",
        ])
        #expect(watch.status == 0)
        #expect(watch.stderr == "note: no documents matched in \(place)\n")
    }

    @Test func aDeadEmulatorPortSaysHowToStartOne() async throws {
        let result = try await CLIProcess.run([
            "get", "fruits/apple", "--emulator", "127.0.0.1:1", "--project", "demo-p",
        ])
        #expect(result.status == 1)
        // curl's own words end the first line: "(Failed to connect to 127.0.0.1 port 1 after 0 ms: ...)"; the call
        // went over gRPC, the default protocol.
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(
            lines.first?.hasPrefix(
                "error: unavailable: could not connect: http://127.0.0.1:1/google.firestore.v1.Firestore/GetDocument "
                    + "(Failed to connect to 127.0.0.1 port 1 after ") == true, "\(lines)")
        #expect(lines.last == Self.startTheEmulatorHint("127.0.0.1:1"))
    }

    /// A watch retrying a dead port says how to start the emulator at its first failure, not only when
    /// `--max-failures` ends it.
    @Test func aWatchOfADeadEmulatorPortSaysHowToStartOneAtOnce() async throws {
        let result = try await CLIProcess.run([
            "watch", "fruits", "--emulator", "127.0.0.1:1", "--project", "demo-p", "--max-failures", "2",
        ])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.first?.hasPrefix("warning: the Listen stream failed") == true, "\(lines)")
        #expect(lines.dropFirst().first == Self.startTheEmulatorHint("127.0.0.1:1"))
        #expect(lines.last == Self.startTheEmulatorHint("127.0.0.1:1"))
    }
}

extension CLIFirstHourTests {
    /// `Scripts/demo --replai`: refused at once, before installing, building or starting an emulator (each of
    /// which says so on stderr first).
    @Test func theDemoScriptRefusesAMistypedOptionFirst() async throws {
        let script = PythonServerProcess.root.appendingPathComponent("Scripts/demo")
        let result = try await CLIProcess.run(["--replai"], executable: script)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "demo: unknown option --replai (did you mean --replay?); see Scripts/demo --help and "
                + "'firestore-feed help demo'\n")
    }
}

extension CLIFirstHourTests {
    /// Runs the tool with `arguments` under python3's `pty`: its stderr a terminal, its stdout thrown away; returns
    /// the exit status and what the terminal received (the terminal turns each "\n" into "\r\n").
    static func runWithTerminalStderr(_ arguments: [String]) async throws -> (status: Int32, terminal: String) {
        let script = """
            import os, pty, subprocess, sys
            master, slave = pty.openpty()
            child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
            os.close(slave)
            received = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                received += chunk
            sys.stdout.write(received.decode("utf-8", "replace"))
            sys.exit(child.wait())
            """
        let result = try await CLIProcess.run(
            ["-c", script, CLIProcess.executable.path] + arguments, executable: URL(fileURLWithPath: "/usr/bin/python3")
        )
        return (result.status, result.stdout)
    }

    /// import and export show their progress on stderr when it is a terminal, and print nothing there otherwise.
    @Test func importAndExportShowProgressOnATerminalOnly() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("progress")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(project).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data((1...3).map { #"{"id":"d\#($0)","data":{"n":\#($0)}}"# + "\n" }.joined().utf8).write(to: file)
        let connection = ["--emulator", host, "--project", project]

        let imported = try await Self.runWithTerminalStderr(["import", "c", file.path] + connection)
        #expect(imported.status == 0, "\(imported.terminal)")
        // One line, rewritten in place (a carriage return, the text, erase to the end of the line), ended at the end.
        #expect(imported.terminal.hasPrefix("\rimport: 3 of 3 documents, "), "\(imported.terminal.debugDescription)")
        #expect(imported.terminal.hasSuffix(" s\u{1B}[K\r\n"), "\(imported.terminal.debugDescription)")
        #expect(imported.terminal.components(separatedBy: "\r\n").count == 2)

        let exported = try await Self.runWithTerminalStderr(["export", "c"] + connection)
        #expect(exported.status == 0, "\(exported.terminal)")
        #expect(exported.terminal.hasPrefix("\rexport: "), "\(exported.terminal.debugDescription)")
        #expect(exported.terminal.contains("\rexport: 3 documents, "), "\(exported.terminal.debugDescription)")
        #expect(exported.terminal.hasSuffix(" s\u{1B}[K\r\n"), "\(exported.terminal.debugDescription)")

        let piped = try await CLIProcess.run(["export", "c"] + connection)
        #expect(piped.status == 0)
        #expect(piped.lines.count == 3)
        #expect(piped.stderr == "")
    }
}
