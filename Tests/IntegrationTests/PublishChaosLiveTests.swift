import FirestoreFeed
import FirestorePubSub
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `firestore-feed publish --checkpoint` under a writer (creates, updates, deletes, a few hot documents, bursts of a
/// hundred writes and ten new documents in one commit), SIGKILLed at random moments 12 times (half of them just after
/// a burst, while its messages are being published, the burst's new documents then deleted while it is down) and
/// started again from its checkpoint each time; a consumer written with Google's Python client
/// (``PublishChaosConsumer``: streaming pull on an ordered subscription made before the first publish) records every
/// delivered message. At the end (the writer stopped, a last run publishing up to the final state, stopped by SIGTERM:
/// exit 0) every final version arrived, every removal the publisher could know of arrived, each document's
/// `updateTime`s never go back in delivery order, every duplicate repeats an earlier (name, updateTime) with the same
/// content, and the consumer's rule applied to everything gives the query's documents, besides the open defect below.
/// The figures are printed; where the kills land is printed, not asserted (a loaded machine moves them); times are
/// hang guards only.
///
/// Two defects of the publisher found here (issue 38):
/// - **Lost removals** (`lostRemovals`; fixed, asserted): a run killed while publishing a snapshot (before its
///   checkpoint) has published some of its messages; the next run resumes from the last checkpoint (or from none: a
///   fresh load), which lacks the documents new in that snapshot. One of them deleted meanwhile was in neither the
///   checkpoint nor the query, so no removal was published and the consumer kept it for ever (seen in every run
///   before the fix: e.g. `b3-0 added` read at 12:00:09.368, the first checkpoint at 12:00:05.804, the run killed in
///   that snapshot's publish, `b3-0` deleted while it was down). Now the names of the snapshot in hand are kept
///   beside the store before its messages go out, and the next run publishes a removal for each one its first
///   snapshot lacks (`removals again` in the figures counts those and other repeated removals).
/// - **Spurious removals after a resume** (`spuriousRemovals`; about one run in six; the emulator's, counted and
///   printed; the consumer's rule now undoes them, asserted by `equal`): a run resumed from its
///   checkpoint published a first snapshot in which nearly every document was `removed` (262 of 267 messages), then a
///   later run `added` them back with their unchanged `updateTime`s (or one made just before the removal's read
///   time). The removal's `updateTime` is its snapshot's read time, later than the version's, so a rule by update
///   times alone kept the tombstone and dropped the document for good; the consumer's rule is now the mirror's (a
///   document gets past a removal seen at an earlier read time than its own), which brings it back. The emulator answers a resume token with a `RESET` and the whole result (see "Durable
///   checkpoints"); a snapshot taken between the reset and the documents' return lists them removed.
///
/// The Pub/Sub emulator keeps an ordered subscription's per-key order; it redelivers an unacknowledged message after
/// its deadline as production does, and the consumer acknowledges each message right after writing it, so a
/// redelivery is rare here (counted apart in the figures: the same message ID again; none seen).
@Suite(.timeLimit(.minutes(4)), .needsPubSub) struct PublishChaosLiveTests {
    static let kills = Int(ProcessInfo.processInfo.environment["FIRESTORE_FEED_PUBLISH_CHAOS_KILLS"] ?? "") ?? 12

    @Test func killedTwelveTimesThePublisherDeliversEveryFinalVersionInOrderPerDocument() async throws {
        let setup = try await PublishChaosSetup("publish-chaos", seeded: 300, written: 320)
        let (host, project, items, topic) = (setup.host, setup.project, setup.items, setup.topic)
        let (consumer, writer) = (setup.consumer, setup.writer)
        let path = NSTemporaryDirectory() + "publish-chaos-\(UUID().uuidString).sqlite"
        defer { CheckpointLiveTests.remove(path) }
        defer { Task { await writer.stop() } }

        let arguments = [
            "publish", "items", "--emulator", host, "--project", project, "--topic", topic.name, "--checkpoint", path,
            "--verbose",
        ]
        var landed: [String] = []
        var runs: [String] = []
        for kill in 0..<Self.kills {
            let process = try CLIProcess(arguments)
            let bursting = kill % 2 == 1
            var fresh: [DocumentReference] = []
            if bursting {
                // A burst once the run is going, the kill while its messages are being published (or just before).
                try await Task.sleep(for: .milliseconds(Int.random(in: 1_000...2_500)))
                fresh = await writer.burst(kill)
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
            } else {
                // The first kills within 0.5 s of the start (before or in the first snapshot, 300 messages), the
                // others within 3 s.
                try await Task.sleep(
                    for: .milliseconds(kill < 4 ? Int.random(in: 50...500) : Int.random(in: 500...3_000)))
            }
            let accepted = process.stderr.lines.filter { $0.hasPrefix("publish: ") }.count
            Glibc.kill(process.process.processIdentifier, SIGKILL)
            let status = await process.process.exitStatus(timeout: 30)
            // The burst's new documents deleted while the publisher is down: the next run must say them removed.
            await writer.delete(fresh)
            runs.append(String(decoding: process.stderr.data, as: UTF8.self))
            landed.append("\(kill): \(bursting ? "burst, " : "")\(accepted) snapshots accepted (status \(status))")
        }
        await writer.stop()

        // The last run: until the consumer has every final version, then SIGTERM (exit 0).
        let last = try CLIProcess(arguments)
        let expected = try await PublishChaosFigures.expected(items.query)
        let complete = await eventuallyAsync(seconds: 90) {
            let accepted = PublishChaosFigures.acceptedReadTimes(
                runs + [String(decoding: last.stderr.data, as: UTF8.self)])
            return PublishChaosFigures(consumer.messages(), expected: expected, accepted: accepted).complete
        }
        kill(last.process.processIdentifier, SIGTERM)
        let result = await last.finish(timeout: 60)
        let figures = PublishChaosFigures(
            consumer.messages(), expected: expected,
            accepted: PublishChaosFigures.acceptedReadTimes(runs + [result.stderr]))
        let delivered = consumer.messages()
        if let keep = ProcessInfo.processInfo.environment["FIRESTORE_FEED_PUBLISH_CHAOS_KEEP"] {
            try? FileManager.default.copyItem(atPath: consumer.path, toPath: keep + ".jsonl")
            try? (runs + [result.stderr]).joined(separator: "\n=====\n").write(
                toFile: keep + ".runs", atomically: true, encoding: .utf8)
            try? expected.keys.sorted().joined(separator: "\n").write(
                toFile: keep + ".expected", atomically: true, encoding: .utf8)
        }
        let consumed = await consumer.stop()
        for name in (figures.missingRemovals + figures.lostRemovals).prefix(3).compactMap({
            $0.split(separator: " ").first.map(String.init)
        }) {
            let seen = delivered.filter { $0.name == name }.map {
                "\($0.attributes["changeType"] ?? "") \($0.updateTime) read \($0.attributes["readTime"] ?? "")"
            }
            print("publish chaos: \(name): \(seen)")
        }
        if !complete { print("publish chaos: the last run's stderr: \(result.stderr.suffix(3_000))") }
        print(
            "publish chaos: \(Self.kills) kills, \(writer.count) writes, \(expected.count) documents at the "
                + "end; \(figures); kills landed: \(landed)")
        #expect(complete, "missing: \(figures.missingVersions.prefix(10)) \(figures.missingRemovals.prefix(10))")
        #expect(result.status == 0, "SIGTERM ends the publisher with exit 0; stderr: \(result.stderr.suffix(2_000))")
        #expect(consumed.status == 0, "the consumer's stderr: \(consumed.stderr.suffix(2_000))")
        #expect(figures.missingVersions == [])
        #expect(figures.missingRemovals == [])
        #expect(figures.regressions == [])
        #expect(figures.differingDuplicates == [])
        #expect(figures.wrongKeys == [])
        #expect(figures.equalBesidesKnown, "applied \(figures.applied.count) documents, the query \(expected.count)")
        // Fixed: a document published only in a snapshot never acknowledged, then deleted, gets a removal from the
        // next run (the pending names kept beside the store).
        #expect(figures.lostRemovals == [])
        // The emulator's spurious removals after a resume (see the suite's comment) still come; the consumer's rule
        // (the mirror's: a document gets past a removal seen at an earlier read time) brings the documents back.
        #expect(figures.equal, "applied \(figures.applied.count) documents, the query \(expected.count)")
    }
}
