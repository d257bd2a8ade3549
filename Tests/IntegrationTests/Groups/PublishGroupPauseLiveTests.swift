import FirestoreFeed
import FirestorePubSub
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Three `firestore-feed publish --group` members (3 shards, a 3 s lease renewed every 0.5 s) under the writer of
/// ``PublishChaosLiveTests``; the holder of shard 0 is SIGSTOPped while the writer goes on, kept stopped until every
/// shard it held is another member's at a higher generation and two lease lengths have passed (a burst of writes
/// made meanwhile), then SIGCONTed.
///
/// What the code guarantees, asserted:
/// - A change committed after the member stopped reaches it only after SIGCONT, past its leases: `FeedGroup.publish`
///   checks the fence before each publish (``ShardSnapshot/fenceStands()``, and the member hands out no snapshot of
///   a shard whose fence fell), so **no message carries a (shard, generation) the paused member held together with a
///   version committed after it stopped** (an `updateTime` after the stop, which a removal's read time would be too).
///   The paused member says it stopped delivering each of those shards (`warning: stopped delivering shard S
///   (generation G)`).
/// - A publish the member had started before it stopped (the fence checked, some requests not yet sent) goes on at
///   SIGCONT with the old generation: Pub/Sub cannot refuse a stale writer. Those messages repeat versions the next
///   owner publishes again (it resumes from the last acknowledged snapshot, before them), so the consumer's rule makes
///   them no-ops: **in what the consumer applies, no ordering key's generation goes back**, and the applied map
///   equals the query. How many such late messages came (a matter of where the stop landed) is printed, not asserted.
/// - The checks of ``PublishGroupChaosLiveTests`` that hold whatever the timing: every final version and removal
///   arrived, every duplicate repeats its first, every message is fenced and of one shard, keyed by its name. Not
///   the absence of spurious removals: the next owner resumes the paused member's shards with their resume tokens,
///   and the emulator's `RESET` can make it publish removals of documents that are still there, then the documents
///   again (``PublishChaosLiveTests``: the emulator's; seen here in 2 runs of 9, each undone by the consumer's rule,
///   which `equal` asserts).
///
/// The circumstance is certain, not timed: the stop is seen in every thread's `/proc/PID/task/TID/stat` (`kill`
/// returns before the other threads stop) before the clock for "after the stop" is read, the takeover is read from
/// the lease documents, and the pause lasts two lease lengths at least. Times are hang guards only.
@Suite(.timeLimit(.minutes(4)), .needsPubSub) struct PublishGroupPauseLiveTests {
    @Test func aMemberPausedPastItsLeasePublishesNothingOfItsLostShardsAndTheConsumerAppliesNoGenerationBack()
        async throws
    {
        let setup = try await PublishChaosSetup("publish-group-pause", seeded: 150, written: 160)
        let (host, project, db, topic, writer) = (setup.host, setup.project, setup.db, setup.topic, setup.writer)
        defer { Task { await writer.stop() } }
        let arguments = { (member: String) in
            PublishGroupChaosLiveTests.arguments(host: host, project: project, topic: topic, member: member)
        }
        let members = try ["a", "b", "c"].map { id in (id: id, process: try CLIProcess(arguments(id))) }
        defer {
            for member in members {
                kill(member.process.process.processIdentifier, SIGCONT)
                member.process.process.end(grace: 5)
            }
        }
        try #require(await PublishGroupChaosLiveTests.everyShardHeld(db), "every shard held")
        try await Task.sleep(for: .milliseconds(Int.random(in: 1_000...3_000)))

        // The holder of shard 0, stopped while the writer goes on.
        let owner = try #require(await PublishGroupChaosLiveTests.owners(db)[0])
        let paused = try #require(members.firstIndex { $0.id == owner })
        let pid = members[paused].process.process.processIdentifier
        kill(pid, SIGSTOP)
        let stopped = await eventuallyAsync(seconds: 10) { MirrorGroupChaosLiveTests.stopped(pid: pid) }
        try #require(stopped, "member \(owner) stopped")
        let stoppedAt = Timestamp.now()
        let pausedAt = ContinuousClock.now
        // Its leases, read once it is stopped: it can no longer change them, and none expires this soon.
        var pausedLeases: [Int: Int64] = [:]
        for shard in 0..<PublishGroupChaosLiveTests.shards {
            if let lease = await MirrorGroupChaosLiveTests.lease(db, shard: shard), lease.owner == owner {
                pausedLeases[shard] = lease.generation
            }
        }
        try #require(pausedLeases[0] != nil, "\(owner) holds shard 0 when stopped: \(pausedLeases)")
        let leases = pausedLeases
        let takenOver = await eventuallyAsync(seconds: 60) {
            for (shard, generation) in leases {
                guard let lease = await MirrorGroupChaosLiveTests.lease(db, shard: shard), !lease.owner.isEmpty,
                    lease.owner != owner, lease.generation > generation
                else { return false }
            }
            return true
        }
        try #require(takenOver, "the paused member's shards \(leases) taken over at higher generations")
        await writer.burst(1)
        // Two lease lengths at least: every lease of the paused member has expired, whatever the machine's speed.
        try await Task.sleep(until: pausedAt + .seconds(2 * PublishGroupChaosLiveTests.lease))
        kill(pid, SIGCONT)
        let toldStopped = await eventuallyAsync(seconds: 60) {
            let stderr = String(decoding: members[paused].process.stderr.data, as: UTF8.self)
            return leases.allSatisfy { stderr.contains("stopped delivering shard \($0.key) (generation \($0.value))") }
        }
        await writer.burst(2)
        try await Task.sleep(for: .seconds(3))
        await writer.stop()

        let outcome = try await PublishGroupOutcome(setup, members: members)
        let (expected, complete, results, delivered) = (
            outcome.expected, outcome.complete, outcome.results, outcome.delivered
        )
        let (consumed, figures, generations) = (outcome.consumed, outcome.figures, outcome.generations)
        // The paused member's leases with a version committed after it stopped: published past the fence.
        let ofPausedLeases = delivered.filter { message in
            guard let shard = message.attributes["shard"].flatMap(Int.init),
                let generation = message.attributes["generation"].flatMap(Int64.init)
            else { return false }
            return leases[shard] == generation
        }
        let pastTheFence = ofPausedLeases.filter { message in
            (try? Timestamp(rfc3339: message.updateTime)).map { $0 > stoppedAt } ?? true
        }
        // Messages of the paused member's leases delivered after one of a higher generation of their key: its
        // publish under way when it stopped, sent at SIGCONT.
        var highest: [String: Int64] = [:]
        var late = 0
        for message in delivered {
            guard let generation = message.attributes["generation"].flatMap(Int64.init) else { continue }
            if let top = highest[message.orderingKey], generation < top { late += 1 }
            highest[message.orderingKey] = max(highest[message.orderingKey] ?? generation, generation)
        }
        let stderr = members.map { "\($0.id):\n\(results[$0.id]?.stderr ?? "")" }.joined(separator: "\n")
        print(
            "publish group pause: \(owner) stopped holding \(leases.sorted { $0.key < $1.key }) for "
                + "\(ContinuousClock.now - pausedAt) (paused at least \(2 * PublishGroupChaosLiveTests.lease) s), "
                + "\(writer.count) writes, \(expected.count) documents at the end; \(ofPausedLeases.count) messages of "
                + "its leases, \(late) delivered after a higher generation of their key (its publish under way when "
                + "it stopped), \(pastTheFence.count) of a version after the stop; \(figures); \(generations)")
        #expect(toldStopped, "the paused member stopped delivering \(leases); its stderr: \(stderr.suffix(4_000))")
        #expect(
            pastTheFence.map { "\($0.name) \($0.updateTime) (shard \($0.attributes["shard"] ?? ""))" } == [],
            "published by the paused member after its leases passed")
        #expect(complete, "missing: \(figures.missingVersions.prefix(10)) \(figures.missingRemovals.prefix(10))")
        for member in members {
            #expect(results[member.id]?.status == 0, "\(member.id) exits 0 on SIGTERM; \(stderr.suffix(4_000))")
        }
        #expect(consumed.status == 0, "the consumer's stderr: \(consumed.stderr.suffix(2_000))")
        #expect(figures.missingVersions == [])
        #expect(figures.missingRemovals == [])
        #expect(figures.lostRemovals == [])
        #expect(figures.differingDuplicates == [])
        #expect(figures.wrongKeys == [])
        #expect(figures.appliedGenerationDecreases == [])
        #expect(figures.equal, "applied \(figures.applied.count) documents, the query \(expected.count)")
        #expect(generations.unfenced == [])
        #expect(generations.shardChanges == [])
    }
}
