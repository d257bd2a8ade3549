import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Testing

@testable import FirestoreFeed

/// A renewal whose answer comes after its own lease length ran out (the member was paused between the commit and
/// its answer, or the answer was that slow) says nothing of now: the member does not deliver the shard on it, and a
/// sink's refusal of that generation (another member took the lease and wrote the store meanwhile) does not end the
/// member as if the sink were another group's. A renewal answered in time at a refused generation still does.
///
/// Found by `MirrorGroupChaosLiveTests` (SQLite): the member SIGSTOPped while its renewal's commit was on its way
/// renewed the lease before the pause; at SIGCONT its batch in hand was refused (generation 3 stored), then the
/// renewal's answer restarted the shard at generation 2, and the member ended with `failed-precondition` ("the sink is
/// another group's"), exit 1.
@Suite(.timeLimit(.minutes(1))) struct FeedGroupMemberLateRenewalTests {
    static let member = "c"

    /// A lease store that shows `member` holding shard 0 at generation 2, and renews it, answering after `delay`.
    struct RenewingStore: LeaseStore {
        let delay: Duration

        func read() async throws(FirestoreError) -> LeaseTable {
            LeaseTable(
                shards: [ShardLease(shard: 0, owner: FeedGroupMemberLateRenewalTests.member, generation: 2)],
                members: [GroupMember(id: FeedGroupMemberLateRenewalTests.member, heartbeat: 1)])
        }

        func write(
            _ plan: LeasePlan, member: String, checkpoints: [Int: ShardCheckpoint], deadMembers: [String],
            leaving: Bool
        ) async throws(FirestoreError) -> LeaseOutcome {
            // The answer comes `delay` after the write began (a sleep lasts at least that long).
            try? await Task.sleep(for: delay)
            var outcome = LeaseOutcome()
            outcome.renewed = plan.renew
            return outcome
        }
    }

    /// A member of a one-shard group with leases of `lease` that holds shard 0 at generation 2, whose sink refused a
    /// batch of it at generation 2 (it holds 3); after one renewal answered after `delay`, whether it failed and
    /// whether it runs the shard.
    static func renewal(
        lease: Duration, answeredAfter delay: Duration
    ) async throws -> (failure: String?, running: Bool) {
        let transport = ScriptedTransport([])
        let query = try transport.firestore(clock: CountingClock()).collection("items").query
        let options = FeedGroupOptions(
            member: member, shards: 1, leaseDuration: lease, renewInterval: lease / 2)
        let group = FeedGroupMember(base: query, name: "g", options: options, onEvent: nil)
        await group.holdShardZeroRefused(store: RenewingStore(delay: delay))
        try await group.tick()
        return await (group.failure.map { "\($0)" }, group.shardTasks[0] != nil)
    }

    @Test func aRenewalAnsweredAfterItsLeaseRanOutNeitherRestartsTheShardNorEndsTheMember() async throws {
        // Twice the lease length: the renewal's own lease (from the moment it began) ran out before its answer.
        let outcome = try await Self.renewal(lease: .seconds(1), answeredAfter: .seconds(2))
        #expect(outcome.failure == nil)
        #expect(!outcome.running)
    }

    @Test func aRenewalAnsweredInTimeAtARefusedGenerationEndsTheMember() async throws {
        // Answered at once, within a lease of an hour (a bound no renewal reaches, however loaded the machine).
        let outcome = try await Self.renewal(lease: .seconds(3600), answeredAfter: .zero)
        let failure = try #require(outcome.failure)
        #expect(
            failure.contains("holds shard 0 at generation 2, and test sink holds generation 3 for it"), "\(failure)")
        #expect(!outcome.running)
    }
}

extension FeedGroupMember {
    /// Joined with `store` (a one-shard group), holding shard 0 at generation 2 with its feed stopped, as after the
    /// sink refused a batch of it at generation 2 (``refusedBySink(_:)``: it holds generation 3).
    fileprivate func holdShardZeroRefused(store: any LeaseStore) {
        definition = FeedGroupDefinition(query: "items", ranges: ShardRanges(splitPoints: [], shards: 1))
        self.store = store
        var machine = LeaseMachine(member: options.member, shards: 1, leaseDuration: options.leaseDuration)
        var held = LeaseOutcome()
        held.acquired = [HeldLease(shard: 0, generation: 2)]
        machine.apply(held, startedAt: now)
        self.machine = machine
        sinkRefusals[0] = FeedSinkStaleGeneration(sink: "test sink", shard: 0, generation: 2, storedGeneration: 3)
    }
}
