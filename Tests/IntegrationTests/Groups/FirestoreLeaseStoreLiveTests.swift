import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// The lease store on the emulator: a lease write is one plain read and one commit with preconditions (no
/// transaction, so a member killed in the middle leaves no lock behind: the emulator keeps an abandoned transaction's
/// locks for 60 s), and members racing for the same leases each get a lease at most once, with the loser told so.
@Suite(.timeLimit(.minutes(2))) struct FirestoreLeaseStoreLiveTests {
    /// Counts requests by method through the metrics seam.
    struct Requests: FirestoreMetricsFactory {
        final class Counts: Sendable {
            let counts = Mutex<[String: Int64]>([:])
        }
        let counts = Counts()
        struct Counter: FirestoreCounter {
            let key: String
            let counts: Requests
            func increment(by amount: Int64) {
                guard !key.isEmpty else { return }
                counts.counts.counts.withLock { $0[key, default: 0] += amount }
            }
        }
        struct Ignored: FirestoreRecorder, FirestoreTimer {
            func record(_ value: Double) {}
            func recordNanoseconds(_ duration: Int64) {}
        }
        func makeCounter(label: String, dimensions: [(String, String)]) -> any FirestoreCounter {
            let method = dimensions.first { $0.0 == "method" }?.1 ?? ""
            return Counter(key: label == "firestore_requests_total" ? method : "", counts: self)
        }
        func makeRecorder(label: String, dimensions: [(String, String)]) -> any FirestoreRecorder { Ignored() }
        func makeTimer(label: String, dimensions: [(String, String)]) -> any FirestoreTimer { Ignored() }
    }

    final class Box: Sendable {
        let requests = Requests()
    }

    static func store(_ db: Firestore, shards: Int) -> FirestoreLeaseStore {
        FirestoreLeaseStore(group: db.document("feedGroups/g"), shards: shards, leaseDuration: .seconds(3))
    }

    static func acquire(_ shards: [Int]) -> LeasePlan {
        var plan = LeasePlan()
        plan.acquire = shards.map { ($0, ShardLease(shard: $0).version) }
        return plan
    }

    @Test(arguments: [(FirestoreProtocol.rest, "batchGet"), (.grpc, "batchGetDocuments")])
    func aLeaseWriteIsOneReadAndOneConditionalCommitWithNoTransaction(wire: FirestoreProtocol, batchGet: String)
        async throws
    {
        let db = try LiveFirestore.make("lease-store", wire)
        let box = Box()
        db.metricsFactory = box.requests
        let store = Self.store(db, shards: 2)
        let taken = try await store.write(Self.acquire([0, 1]), member: "a", checkpoints: [:], deadMembers: [])
        #expect(taken.acquired == [HeldLease(shard: 0, generation: 1), HeldLease(shard: 1, generation: 1)])
        var plan = LeasePlan()
        plan.renew = [HeldLease(shard: 0, generation: 1)]
        plan.release = [HeldLease(shard: 1, generation: 1)]
        let checkpoint = ShardCheckpoint(
            readTime: try Timestamp(seconds: 1_800_000_000, nanos: 5000), resumeToken: [1, 2])
        let renewed = try await store.write(plan, member: "a", checkpoints: [0: checkpoint], deadMembers: [])
        #expect(renewed.renewed == [HeldLease(shard: 0, generation: 1)])
        #expect(renewed.released == [HeldLease(shard: 1, generation: 1)])
        db.metricsFactory = nil
        #expect(box.requests.counts.counts.withLock { $0 } == [batchGet: 2, "commit": 2])

        let table = try await store.read()
        #expect(
            table.shards == [
                ShardLease(shard: 0, owner: "a", generation: 1, heartbeat: 2, checkpoint: checkpoint),
                ShardLease(shard: 1, owner: "", generation: 1, heartbeat: 2),
            ])
        #expect(table.members == [GroupMember(id: "a", heartbeat: 2)])
        // A plain write to a lease document right after is not held up by any lock the store left.
        try await db.document("feedGroups/g/shards/1").updateData(["heartbeat": 7])
    }

    @Test func membersRacingForTheSameLeasesGetEachOneOnce() async throws {
        let db = try LiveFirestore.make("lease-race")
        let shards = 6
        let members = ["a", "b", "c"]
        let outcomes = try await withThrowingTaskGroup(of: (String, LeaseOutcome).self) { group in
            for member in members {
                let store = Self.store(db, shards: shards)
                group.addTask {
                    (
                        member,
                        try await store.write(
                            Self.acquire(Array(0..<shards)), member: member, checkpoints: [:], deadMembers: [])
                    )
                }
            }
            var all: [String: LeaseOutcome] = [:]
            for try await (member, outcome) in group { all[member] = outcome }
            return all
        }
        // Each shard went to exactly one member at generation 1; the others were told they missed it.
        for shard in 0..<shards {
            let winners = members.filter {
                outcomes[$0]?.acquired.contains(HeldLease(shard: shard, generation: 1)) == true
            }
            let losers = members.filter { outcomes[$0]?.missed.contains(shard) == true }
            #expect(winners.count == 1, "shard \(shard): \(winners)")
            #expect(
                winners + losers.sorted() == [winners.first ?? ""] + members.filter { $0 != winners.first }.sorted())
        }
        let table = try await Self.store(db, shards: shards).read()
        for lease in table.shards {
            let winner = members.first {
                outcomes[$0]?.acquired.contains(HeldLease(shard: lease.shard, generation: 1)) == true
            }
            #expect(lease.owner == winner, "shard \(lease.shard)")
            #expect(lease.generation == 1)
        }
        #expect(table.members.map(\.id).sorted() == members)
    }
}
