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
/// ``PublishChaosLiveTests``; the holder of shard 0 is SIGKILLed just after a burst (while its messages are being
/// published) and started again as a new member, and the group hands its shards over. The same consumer (Google's
/// Python client, an ordered subscription) and the same assertions (every final version and removal arrived, no
/// document's `updateTime` goes back, every duplicate repeats an earlier (name, updateTime), the consumer's rule
/// gives the query), plus the fencing token: every message carries its `shard` and `generation`, a document is always
/// of one shard, and in delivery order the generation never goes back among the messages of one ordering key.
///
/// A defect of the group publisher found here (issue 38), fixed and asserted (before the fix: 4 runs of 15; after
/// it, 0 of 20): a member over its fair share, as members join (at the start, or when the killed one comes
/// back), releases a shard (`note: released the lease of shard S (generation G)`) while its publish of the snapshot
/// in hand is under way (the fence was checked before it, and stood). The release is committed first and the shard's
/// feed stopped after it, so the next owner takes the shard at once (G + 1) and publishes, and the old owner's
/// messages are accepted, hence delivered, after the new owner's for the same documents: the generation goes back
/// per ordering key (`d055 …33.199225Z: 1 after 2`, member `a` having released shard 1 at generation 1, `c` holding it
/// at 2), and once with an `updateTime` before one delivered earlier (`d076 …38.769518Z after …39.992841Z`). The
/// consumer's rule makes them no-ops (the consumer ends equal to the query), but the order the DocC article promises
/// per document did not hold across such a handover, with no pause at all. Now a member releases a shard over its
/// share only once the snapshot in hand is acknowledged, and hands out nothing more of it meanwhile.
///
/// Across the ordering keys of one shard the generation can go back in delivery order anyway: an ordered
/// subscription orders one key's messages only, and the Python client runs different keys' callbacks on a thread
/// pool. How often it happened is printed, and whether a consumer dropping every message below the highest generation
/// seen for its shard, as the DocC article once allowed, would end equal to the query: in 7 runs of 15 it would not, having
/// dropped a document's last version, published by the old owner and delivered after another document's message of
/// the new owner (the advice was unsafe, and is gone). Not asserted: it depends on the delivery's interleaving.
@Suite(.timeLimit(.minutes(4)), .needsPubSub) struct PublishGroupChaosLiveTests {
    static let shards = 3
    static let lease = 3

    static func arguments(host: String, project: String, topic: PubSubTopic, member: String) -> [String] {
        [
            "publish", "items", "--emulator", host, "--project", project, "--topic", topic.name, "--group", "g",
            "--shards", "\(shards)", "--lease", "\(lease)", "--renew", "0.5", "--member", member, "--verbose",
        ]
    }

    /// Every shard's lease owner (empty when released).
    static func owners(_ db: Firestore) async -> [Int: String] {
        var owners: [Int: String] = [:]
        for shard in 0..<shards {
            owners[shard] = await MirrorGroupChaosLiveTests.lease(db, shard: shard)?.owner
        }
        return owners
    }

    /// Whether every shard gets an owner within 60 s.
    static func everyShardHeld(_ db: Firestore) async -> Bool {
        await eventuallyAsync(seconds: 60) {
            let owners = await owners(db)
            return owners.count == shards && owners.values.allSatisfy { !$0.isEmpty }
        }
    }

    @Test func threeMembersOneKilledAndStartedAgainDeliverEveryFinalVersionWithGenerationsNeverBackPerDocument()
        async throws
    {
        let setup = try await PublishChaosSetup("publish-group-chaos", seeded: 150, written: 160)
        let (host, project, db, topic, writer) = (setup.host, setup.project, setup.db, setup.topic, setup.writer)
        defer { Task { await writer.stop() } }

        var members = try ["a", "b", "c"].map { id in
            (id: id, process: try CLIProcess(Self.arguments(host: host, project: project, topic: topic, member: id)))
        }
        defer { for member in members { member.process.process.end(grace: 5) } }
        var earlier: [String] = []
        try #require(await Self.everyShardHeld(db), "every shard held")
        try await Task.sleep(for: .milliseconds(Int.random(in: 1_000...3_000)))

        // The holder of shard 0, SIGKILLed just after a burst, and started again as a new member.
        let owner = try #require(await Self.owners(db)[0])
        let killed = try #require(members.firstIndex { $0.id == owner })
        await writer.burst(1)
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
        kill(members[killed].process.process.processIdentifier, SIGKILL)
        _ = await members[killed].process.process.exitStatus(timeout: 30)
        earlier.append("\(owner) (killed):\n" + String(decoding: members[killed].process.stderr.data, as: UTF8.self))
        members[killed] = (
            owner + "2", try CLIProcess(Self.arguments(host: host, project: project, topic: topic, member: owner + "2"))
        )
        let takenOver = await eventuallyAsync(seconds: 60) {
            let owners = await Self.owners(db)
            return owners.count == Self.shards && owners.values.allSatisfy { !$0.isEmpty && $0 != owner }
        }
        try #require(takenOver, "the killed member's shards taken over")
        await writer.burst(2)
        try await Task.sleep(for: .seconds(3))
        await writer.stop()

        let outcome = try await PublishGroupOutcome(setup, members: members, earlier: earlier)
        let (expected, complete, results) = (outcome.expected, outcome.complete, outcome.results)
        let (consumed, figures, generations) = (outcome.consumed, outcome.figures, outcome.generations)
        let stderr = (earlier + members.map { "\($0.id):\n\(results[$0.id]?.stderr ?? "")" }).joined(separator: "\n")
        print(
            "publish group chaos: 1 kill (\(owner), holding shard 0), \(writer.count) writes, \(expected.count) "
                + "documents at the end; \(figures); \(generations)")
        #expect(complete, "missing: \(figures.missingVersions.prefix(10)) \(figures.missingRemovals.prefix(10))")
        for member in members {
            #expect(results[member.id]?.status == 0, "\(member.id) exits 0 on SIGTERM; \(stderr.suffix(4_000))")
        }
        #expect(consumed.status == 0, "the consumer's stderr: \(consumed.stderr.suffix(2_000))")
        #expect(figures.missingVersions == [])
        #expect(figures.missingRemovals == [])
        // A document added in a snapshot the killed owner published after the shard's stored checkpoint, and deleted
        // before the takeover, gets its removal from the next owner (the names kept beside the lease).
        #expect(figures.lostRemovals == [])
        #expect(figures.equal, "applied \(figures.applied.count) documents, the query \(expected.count)")
        // The emulator's removals after a resume of documents still there (see PublishChaosLiveTests), undone by the
        // consumer's rule: counted, and the consumer ends equal to the query besides the lost removals above.
        #expect(figures.equalBesidesKnown, "applied \(figures.applied.count) documents, the query \(expected.count)")
        // An updateTime back in delivery order from an older generation than an earlier message of its document (the
        // handover defect, fixed) is counted apart, so the figures tell it; both are asserted.
        let staleRegressions = figures.regressions.filter { regression in
            generations.staleVersions.contains(regression.split(separator: " ").prefix(2).joined(separator: " "))
        }
        #expect(figures.regressions.filter { !staleRegressions.contains($0) } == [])
        #expect(figures.differingDuplicates == [])
        #expect(figures.wrongKeys == [])
        #expect(generations.unfenced == [])
        #expect(generations.shardChanges == [])
        // Fixed (see the suite's comment): a member releasing a shard over its fair share waits for the snapshot in
        // hand to be acknowledged, so the next owner's messages of a document never precede the last owner's.
        #expect(generations.perKeyDecreases == [])
        #expect(staleRegressions == [])
        if !generations.perKeyDecreases.isEmpty {
            let leases = stderr.split(separator: "\n").filter { $0.contains("lease") || $0.hasSuffix(":") }
            print("publish group chaos: the members' lease events: \(leases.joined(separator: " | "))")
        }
    }
}

/// The fencing tokens of a group's messages, in delivery order.
struct GenerationFigures: CustomStringConvertible {
    /// Messages without a `shard` or `generation`.
    var unfenced: [String] = []
    /// Documents seen in two shards.
    var shardChanges: [String] = []
    /// A message whose generation is below an earlier one of its ordering key.
    var perKeyDecreases: [String] = []
    /// Those messages' (name, updateTime), `name updateTime`.
    var staleVersions: Set<String> = []
    /// Messages whose generation is below the highest seen before for their shard (any key), and the first few.
    var perShardDecreases = 0
    var perShardExamples: [String] = []
    /// Each shard's generations in the order they first appeared.
    var generationsSeen: [Int: [Int64]] = [:]
    /// Whether a consumer that also drops every message below its shard's highest generation ends equal to the query.
    var droppingConsumerEqual = false

    init(_ delivered: [DeliveredMessage], expected: [String: (updateTime: String, fields: JSONValue)]) {
        var shardOf: [String: Int] = [:]
        var perKey: [String: Int64] = [:]
        var perShard: [Int: Int64] = [:]
        var held: [String: (updateTime: String, fields: JSONValue?)] = [:]
        for message in delivered {
            guard let shard = message.attributes["shard"].flatMap(Int.init),
                let generation = message.attributes["generation"].flatMap(Int64.init)
            else {
                unfenced.append(message.name)
                continue
            }
            if let known = shardOf[message.name], known != shard {
                shardChanges.append("\(message.name): \(known) then \(shard)")
            }
            shardOf[message.name] = shard
            if let last = perKey[message.orderingKey], generation < last {
                perKeyDecreases.append("\(message.name) \(message.updateTime): \(generation) after \(last)")
                staleVersions.insert(message.name + " " + message.updateTime)
            }
            perKey[message.orderingKey] = max(perKey[message.orderingKey] ?? generation, generation)
            if !(generationsSeen[shard] ?? []).contains(generation) {
                generationsSeen[shard, default: []].append(generation)
            }
            let highest = perShard[shard] ?? generation
            perShard[shard] = max(highest, generation)
            if generation < highest {
                perShardDecreases += 1
                if perShardExamples.count < 5 {
                    perShardExamples.append(
                        "shard \(shard): \(message.name) \(message.updateTime) at \(generation) after \(highest)")
                }
                continue
            }
            if let current = held[message.name], current.updateTime >= message.updateTime { continue }
            held[message.name] = (message.updateTime, message.fields)
        }
        droppingConsumerEqual = held.compactMapValues(\.fields) == expected.mapValues(\.fields)
    }

    var description: String {
        "generations per shard \(generationsSeen.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }), "
            + "\(unfenced.count) unfenced, \(shardChanges.count) shard changes, \(perKeyDecreases.count) decreases "
            + "per ordering key, \(perShardDecreases) below the shard's highest across keys \(perShardExamples), "
            + "a consumer dropping those ends equal to the query: \(droppingConsumerEqual)"
    }
}
