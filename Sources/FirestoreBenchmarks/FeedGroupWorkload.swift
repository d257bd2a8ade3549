import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// `feed-group`: feed groups on the emulator. Failover: two members, one stopped as a crash would (no release);
/// the time until the other delivers its shards, against the bound lease length + one renewal interval. Lease cost:
/// the billed writes per member-hour, from the members' heartbeats (one per renewal) times the documents each
/// renewal writes. Throughput: the time for 1, 2 and 4 members to deliver a burst of changes, beside one plain
/// Listen feed of the same query in the same run (two cores cannot show scaling: more members mean more
/// processes' work on the same cores; scaling shows with members on separate machines).
enum FeedGroupWorkload {
    /// Every change delivered, by document ID and version, and when the expected number arrived.
    final class Sink: Sendable {
        let seen = Mutex<Set<String>>([])
        func note(_ snapshot: QuerySnapshot) {
            seen.withLock { seen in
                for change in snapshot.documentChanges where change.type != .removed {
                    if case .integer(let version)? = change.document.get("v") {
                        seen.insert("\(change.document.documentID)@\(version)")
                    }
                }
            }
        }
        func count(version: Int64) -> Int { seen.withLock { $0.count { $0.hasSuffix("@\(version)") } } }
    }

    static func options(_ member: String, lease: Duration, renew: Duration) -> FeedGroupOptions {
        FeedGroupOptions(member: member, shards: 4, leaseDuration: lease, renewInterval: renew)
    }

    static func run(documents: Int, lease: Duration) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "feed-group") else { return [] }
        let renew = lease / 3
        let project = ListenSupport.projectID("feed-group")
        struct Figures: Sendable {
            var failover = 0.0
            var heartbeatsPerHour = 0.0
            var held = 0
            var burst: [(members: Int, seconds: Double)] = []
            var plain = 0.0
        }
        let figures = try blocking { () async throws -> Figures in
            var result = Figures()
            let writer = try Firestore.emulator(host: host, projectID: project)
            let collection = writer.collection("orders")
            _ = try await ListenSupport.seed(writer, collection: "orders", documents: documents)
            // Failover and lease cost: two members, a crash, the other takes over.
            let clientA = try Firestore.emulator(host: host, projectID: project)
            let clientB = try Firestore.emulator(host: host, projectID: project)
            let a = FeedGroup(
                clientA.collection("orders"), name: "failover", options: options("a", lease: lease, renew: renew))
            let b = FeedGroup(
                clientB.collection("orders"), name: "failover", options: options("b", lease: lease, renew: renew))
            let consumers = [a, b].map { group in Task { for try await _ in group.snapshots {} } }
            defer { for consumer in consumers { consumer.cancel() } }
            let started = ContinuousClock.now
            while await (a.heldShards().count, b.heldShards().count) != (2, 2) {
                try await Task.sleep(for: .milliseconds(20))
                if ContinuousClock.now - started > .seconds(60) {
                    throw BenchmarkError(message: "feed-group: no balance")
                }
            }
            try await Task.sleep(for: renew * 3)
            let heldBeforeCrash = await a.heldShards()
            let crash = ContinuousClock.now
            await a.abandon()
            while await b.heldShards().count < 4 {
                try await Task.sleep(for: .milliseconds(10))
                // Generous: the figure is reported against its bound below; this only stops a member that never
                // takes over (a quick run inside the loaded test suite can starve the renewals for seconds).
                if ContinuousClock.now - crash > lease * 20 {
                    throw BenchmarkError(message: "feed-group: no failover in \(lease * 20)")
                }
            }
            result.failover = ListenSupport.seconds(ContinuousClock.now - crash)
            let elapsed = ListenSupport.seconds(ContinuousClock.now - started)
            let member = try await writer.collection("feedGroups").document("failover").collection("members")
                .document("b").getDocument()
            if case .integer(let heartbeat)? = member.get("heartbeat") {
                result.heartbeatsPerHour = Double(heartbeat) / elapsed * 3600
            }
            result.held = heldBeforeCrash.count
            await b.leave()

            // Throughput: a burst of `documents` changes, delivered by 1, 2 and 4 members, and by one plain feed.
            var version: Int64 = 1
            func burst() async throws -> ContinuousClock.Instant {
                version += 1
                let start = ContinuousClock.now
                for chunk in stride(from: 0, to: documents, by: 250) {
                    let batch = writer.batch()
                    for index in chunk..<min(chunk + 250, documents) {
                        try batch.setData(
                            ["v": .value(.integer(version))], forDocument: collection.document("d\(index)"))
                    }
                    _ = try await batch.commit()
                }
                return start
            }
            func delivered(_ sink: Sink, _ version: Int64, from start: ContinuousClock.Instant) async throws -> Double {
                while sink.count(version: version) < documents {
                    try await Task.sleep(for: .milliseconds(5))
                    if ContinuousClock.now - start > .seconds(120) {
                        throw BenchmarkError(message: "feed-group: burst lost")
                    }
                }
                return ListenSupport.seconds(ContinuousClock.now - start)
            }
            _ = try await burst()  // every document at version 2: what each feed's first snapshot shows
            for members in [1, 2, 4] {
                let sink = Sink()
                let groups = try (0..<members).map { index in
                    FeedGroup(
                        try Firestore.emulator(host: host, projectID: project).collection("orders"),
                        name: "burst\(members)", options: options("m\(index)", lease: lease, renew: renew))
                }
                let tasks = groups.map { group in
                    Task { for try await shard in group.snapshots { sink.note(shard.snapshot) } }
                }
                while sink.count(version: version) < documents { try await Task.sleep(for: .milliseconds(20)) }
                var balanced = false
                while !balanced {
                    var counts: [Int] = []
                    for group in groups { counts.append(await group.heldShards().count) }
                    balanced = counts.reduce(0, +) == 4 && counts.allSatisfy { $0 >= 4 / members }
                    try await Task.sleep(for: .milliseconds(20))
                }
                let start = try await burst()
                result.burst.append((members, try await delivered(sink, version, from: start)))
                for group in groups { await group.leave() }
                for task in tasks { task.cancel() }
            }
            let sink = Sink()
            let plain = Task { for try await snapshot in collection.snapshots() { sink.note(snapshot) } }
            while sink.count(version: version) < documents { try await Task.sleep(for: .milliseconds(20)) }
            let start = try await burst()
            result.plain = try await delivered(sink, version, from: start)
            plain.cancel()
            return result
        }
        let bound = ListenSupport.seconds(lease + renew)
        let writesPerHour = figures.heartbeatsPerHour * Double(figures.held + 1)
        let failover = String(format: "%.2f", figures.failover)
        let boundText = String(format: "%.2f", bound)
        let verdict = ListenSupport.verdict(
            figures.failover <= bound + 1, goal: "feed-group failover after a SIGKILL", figure: "\(failover) s",
            target: "<= lease + renewal, \(boundText) s (+ 1 s)")
        let renewText = ListenSupport.ms(ListenSupport.seconds(renew))
        let atDefaults = 720 * (figures.held + 1)
        print(
            "feed-group: failover \(failover) s (bound lease + renewal \(boundText) s: \(verdict)); lease writes per "
                + "member-hour at renewal every \(renewText) holding \(figures.held) of 4 shards: \(Int(writesPerHour)) "
                + "(at the defaults, 5 s: \(atDefaults))")
        for (members, seconds) in figures.burst {
            print(
                "feed-group: \(documents) changes delivered by \(members) member(s) in "
                    + "\(String(format: "%.3f", seconds)) s (one plain Listen feed: \(String(format: "%.3f", figures.plain)) s, "
                    + "ratio \(String(format: "%.2f", seconds / figures.plain)))")
        }
        return figures.burst.map { members, seconds in
            Measurement(
                workload: "feed-group-\(members)", n: documents, medianSeconds: seconds, baseline: "one Listen feed",
                baselineMedianSeconds: figures.plain)
        }
    }
}
