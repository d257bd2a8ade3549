import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `firestore-feed publish` while Pub/Sub refuses every connection (a loopback port nothing listens on): each retry
/// of the snapshot's publish is told on stderr as it happens; a SIGTERM waits for that publish and says so, and a
/// second SIGTERM ends the process at once, with status 143 and a line saying the work in hand was not acknowledged.
@Suite(.timeLimit(.minutes(3))) struct CLIPublishRetryLiveTests {
    @Test func aFailingPublishIsToldAsItRetriesAndASecondSIGTERMStopsAtOnce() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-publish-retry")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("fruits/apple").setData(["kcal": 52])
        let topic = "projects/\(project)/topics/changes"
        try await withClosedLoopbackPort { port in
            var environment = ProcessInfo.processInfo.environment
            environment["PUBSUB_EMULATOR_HOST"] = "127.0.0.1:\(port)"
            let publish = try CLIProcess(
                [
                    "publish", "fruits", "--emulator", host, "--project", project, "--topic", topic,
                    "--pubsub-protocol", "rest",
                ],
                environment: environment)
            let warning =
                "warning: publishing failed (the snapshot is not checkpointed until it is published), retrying in "
            // Two retries told: the first snapshot's publish is being retried, not given up.
            let deadline = ContinuousClock.now + .seconds(60)
            while publish.stderr.lines.filter({ $0.hasPrefix(warning) }).count < 2, ContinuousClock.now < deadline,
                !publish.stderr.isEnded
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            let told = publish.stderr.lines.filter { $0.hasPrefix(warning) }
            #expect(told.count >= 2, "stderr: \(publish.stderr.lines)")
            #expect(told.allSatisfy { $0.contains(" s: unavailable: Pub/Sub publish to \(topic): ") }, "\(told)")

            // The first SIGTERM waits for the publish in hand, and says so after a second; then the second one.
            kill(publish.process.processIdentifier, SIGTERM)
            let waiting =
                "firestore-feed: SIGTERM: stopping once the work in hand is done (a second SIGTERM stops at once)"
            let saidDeadline = ContinuousClock.now + .seconds(60)
            while !publish.stderr.lines.contains(waiting), ContinuousClock.now < saidDeadline, !publish.stderr.isEnded {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(publish.stderr.lines.contains(waiting), "stderr: \(publish.stderr.lines)")
            kill(publish.process.processIdentifier, SIGTERM)
            let result = await publish.finish(timeout: 60)
            #expect(result.status == 143, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "firestore-feed: a second SIGTERM before the work in hand was done: stopped at once, that work not "
                        + "acknowledged (the next run delivers it again from the last checkpoint)"),
                "stderr: \(result.stderr)")
        }
    }
}
