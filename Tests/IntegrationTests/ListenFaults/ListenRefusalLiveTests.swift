import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The emulator refuses a Listen for a project ID it does not accept (its log: `Invalid app id: dev~My_Project`) by
/// ending the call at once with a bare `UNKNOWN`: the feed reports every refusal, naming the likely cause; `watch`
/// refuses such an ID before it listens; a refused Listen on a scripted server ends `watch --max-failures N`.
@Suite(.timeLimit(.minutes(3))) struct ListenRefusalLiveTests {
    static let hint =
        "unknown: grpc-status 2 (the server gave no reason; the Firestore emulator ends a Listen call so for a project "
        + "ID it refuses, and this one is \"My_Project\": project IDs are 6 to 30 lower-case letters, digits and "
        + "hyphens)"

    @Test func theEmulatorsRefusalIsReportedEveryTime() async throws {
        let db = try Firestore.emulator(host: try EmulatorEnvironment.requireHost(), projectID: "My_Project")
        let events = RecordedEvents()
        let feed = db.collection("fruits").snapshots(source: .listen, policy: ListenFaultFixture.policy) {
            events.note($0)
        }
        let consumer = Task { for try await _ in feed {} }
        defer { consumer.cancel() }
        // The fixture's policy keeps the default liveness bound (60 s): a call the emulator has not answered is probed
        // only after 40 s of silence, and its refusal comes far sooner even on a loaded machine, so every line is one.
        #expect(await events.wait(timeout: 90) { _ in events.lines.count >= 3 })
        #expect(Array(events.lines.prefix(3)) == Array(repeating: "listenFailed \(Self.hint)", count: 3))
    }

    /// The tool checks the project ID before it listens, so the emulator's bare refusal never reaches a user of
    /// `watch` (the scripted server below ends a refused Listen the way `--max-failures` must).
    @Test func watchRefusesTheProjectIDBeforeListening() async throws {
        let result = try await CLIProcess.run([
            "watch", "fruits", "--emulator", try EmulatorEnvironment.requireHost(), "--project", "My_Project",
            "--max-failures", "2",
        ])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == #"error: invalid project ID "My_Project" (from --project): the emulator takes project IDs of "#
                + #"lower-case letters, digits and hyphens, such as demo-fruits (did you mean "my-project"?)"#
                + "\nsee 'firestore-feed help watch'\n")
    }

    /// A scripted server that answers each Listen call with `ADD` and then ends it: a stream that answers but never
    /// reaches a snapshot is failing, so `--max-failures 3` ends it.
    @Test func watchWithMaxFailuresEndsAListenThatNeverReachesASnapshot() async throws {
        let server = try await ScriptedGRPCServer.start(
            script: ListenScript.script([
                [ListenScript.awaitRequests(1), ListenScript.target("ADD", [1]), ListenScript.end(14, "overloaded")]
            ]))
        let result = try await CLIProcess.run([
            "watch", "fruits", "--emulator", server.host, "--project", ListenScript.project, "--max-failures", "3",
        ])
        #expect(result.status == 1)
        #expect(
            result.stderr.split(separator: "\n").last
                == "error: unavailable: overloaded (3 failures in a row: --max-failures 3 ends the watch)")
        // The third failure ends the watch (the message above says so). How many reconnections were already under
        // way and reached the server before the process exited is the machine's speed (a fourth call was seen on a
        // loaded machine), so only the three failures' calls are required.
        let calls = await server.listenCalls(atLeast: 3)
        #expect(calls >= 3, "\(calls) Listen calls")
        print("watch --max-failures 3: \(calls) Listen calls reached the server")
    }
}
