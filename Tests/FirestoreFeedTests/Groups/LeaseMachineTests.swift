import FirestoreFeed
import FirestoreREST
import Testing

/// One member's lease decisions under a scripted clock and a table written by hand: acquire, renew, expire by
/// observation, steal, fence, rebalance when members join and leave.
@Suite(.timeLimit(.minutes(1))) struct LeaseMachineTests {
    static let lease = Duration.seconds(15)

    static func machine(_ member: String, shards: Int = 4) -> LeaseMachine {
        LeaseMachine(member: member, shards: shards, leaseDuration: lease)
    }

    static func table(_ owners: [String], members: [(String, Int64)]) -> LeaseTable {
        LeaseTable(
            shards: owners.enumerated().map { ShardLease(shard: $0.offset, owner: $0.element, generation: 1) },
            members: members.map { GroupMember(id: $0.0, heartbeat: $0.1) })
    }

    /// Runs one tick of `machine` at `now` against `table`, writing what it decides into `table`.
    static func tick(_ machine: inout LeaseMachine, _ table: inout LeaseTable, at now: Duration) -> LeaseOutcome {
        machine.observe(table, at: now)
        let plan = machine.plan(table, at: now)
        machine.forget(plan.lost)
        let current = Dictionary(uniqueKeysWithValues: table.shards.map { ($0.shard, $0) })
        let (writes, outcome) = LeaseWrites.resolve(plan, current: current, member: machine.member, checkpoints: [:])
        for lease in writes { table.shards[lease.shard] = lease }
        if let index = table.members.firstIndex(where: { $0.id == machine.member }) {
            table.members[index].heartbeat += 1
        } else {
            table.members.append(GroupMember(id: machine.member, heartbeat: 1))
        }
        machine.apply(outcome, startedAt: now)
        return outcome
    }

    @Test func aLoneMemberTakesEveryFreeLeaseAtItsFirstTick() {
        var a = Self.machine("a")
        var table = Self.table(["", "", "", ""], members: [])
        let outcome = Self.tick(&a, &table, at: .zero)
        #expect(outcome.acquired.map(\.shard) == [0, 1, 2, 3])
        #expect(outcome.acquired.map(\.generation) == [2, 2, 2, 2])
        #expect(table.shards.map(\.owner) == ["a", "a", "a", "a"])
        #expect(a.deliverable(2, at: .seconds(13)) == 2)
        // Fenced at the write's start plus the lease length minus a tenth of it: 13.5 s.
        #expect(a.deliverable(2, at: .milliseconds(13_500)) == nil)
    }

    @Test func aJoiningMemberGetsHalfOnceTheFirstReleasesItsExcess() {
        var a = Self.machine("a")
        var b = Self.machine("b")
        var table = Self.table(["", "", "", ""], members: [])
        _ = Self.tick(&a, &table, at: .zero)
        // b registers (its first tick finds no free lease and takes nothing).
        #expect(Self.tick(&b, &table, at: .seconds(1)).acquired == [])
        // a sees b live: its share is ceil(4 / 2) = 2; it releases shards 2 and 3.
        let released = Self.tick(&a, &table, at: .seconds(5))
        #expect(released.released == [HeldLease(shard: 2, generation: 2), HeldLease(shard: 3, generation: 2)])
        #expect(a.deliverable(3, at: .seconds(5)) == nil)
        let taken = Self.tick(&b, &table, at: .seconds(6))
        #expect(taken.acquired == [HeldLease(shard: 2, generation: 3), HeldLease(shard: 3, generation: 3)])
        #expect(table.shards.map(\.owner) == ["a", "a", "b", "b"])
    }

    @Test func aDeadMembersLeasesAreTakenOnlyAfterALeaseLengthOfNoChange() {
        var a = Self.machine("a")
        var b = Self.machine("b")
        var table = Self.table(["", "", "", ""], members: [])
        _ = Self.tick(&a, &table, at: .zero)
        _ = Self.tick(&b, &table, at: .seconds(1))
        _ = Self.tick(&a, &table, at: .seconds(5))
        _ = Self.tick(&b, &table, at: .seconds(6))
        // a dies after its write at 5 s; b last saw a's leases change at 6 s.
        for second in stride(from: 11, through: 16, by: 5) {
            #expect(Self.tick(&b, &table, at: .seconds(second)).acquired == [])
        }
        let stolen = Self.tick(&b, &table, at: .seconds(21))
        #expect(stolen.acquired == [HeldLease(shard: 0, generation: 3), HeldLease(shard: 1, generation: 3)])
        // a's fence fell at 5 + 15 - 1.5 = 18.5 s, before b took the leases at 21 s.
        #expect(a.deliverable(0, at: .milliseconds(18_499)) == 2)
        #expect(a.deliverable(0, at: .milliseconds(18_500)) == nil)
        // a wakes up: its next tick finds both leases lost and writes nothing for them.
        let woken = Self.tick(&a, &table, at: .seconds(22))
        #expect(woken.renewed == [])
        #expect(a.heldLeases == [])
        #expect(table.shards.map(\.owner) == ["b", "b", "b", "b"])
    }

    @Test func aRenewalOfALeaseTakenMeanwhileIsRefusedAsLost() {
        let plan = {
            var plan = LeasePlan()
            plan.renew = [HeldLease(shard: 0, generation: 4)]
            return plan
        }()
        let stolen = ShardLease(shard: 0, owner: "b", generation: 5, heartbeat: 9)
        let (writes, outcome) = LeaseWrites.resolve(plan, current: [0: stolen], member: "a", checkpoints: [:])
        #expect(writes == [])
        #expect(outcome.lost == [HeldLease(shard: 0, generation: 4)])
    }

    @Test func anAcquisitionOfALeaseWrittenSinceItWasSeenIsMissed() {
        var plan = LeasePlan()
        plan.acquire = [(0, LeaseVersion(owner: "", generation: 3, heartbeat: 7))]
        let taken = ShardLease(shard: 0, owner: "c", generation: 4, heartbeat: 8)
        let (writes, outcome) = LeaseWrites.resolve(plan, current: [0: taken], member: "a", checkpoints: [:])
        #expect(writes == [])
        #expect(outcome.missed == [0])
    }

    @Test func aCheckpointIsWrittenOnlyWithTheOwnersRenewal() throws {
        var plan = LeasePlan()
        plan.renew = [HeldLease(shard: 1, generation: 2)]
        let checkpoint = ShardCheckpoint(readTime: try Timestamp(seconds: 1_700_000_000, nanos: 0), resumeToken: [7])
        let held = ShardLease(shard: 1, owner: "a", generation: 2, heartbeat: 3)
        let (writes, _) = LeaseWrites.resolve(plan, current: [1: held], member: "a", checkpoints: [1: checkpoint])
        #expect(writes == [ShardLease(shard: 1, owner: "a", generation: 2, heartbeat: 4, checkpoint: checkpoint)])
        let (fenced, outcome) = LeaseWrites.resolve(
            plan, current: [1: ShardLease(shard: 1, owner: "b", generation: 3, heartbeat: 5)], member: "a",
            checkpoints: [1: checkpoint])
        #expect(fenced == [])
        #expect(outcome.lost == [HeldLease(shard: 1, generation: 2)])
    }

    @Test func theMostLoadedMemberReleasesOneWhenAnotherStarves() {
        // 4 shards, 3 live members: a and b hold 2 each, c none. a's share is ceil(4/3) = 2, floor 1.
        var a = Self.machine("a")
        var b = Self.machine("b")
        var table = Self.table(["a", "a", "b", "b"], members: [("a", 1), ("b", 1), ("c", 1)])
        a.apply(
            {
                var outcome = LeaseOutcome()
                outcome.acquired = [HeldLease(shard: 0, generation: 1), HeldLease(shard: 1, generation: 1)]
                return outcome
            }(), startedAt: .zero)
        b.apply(
            {
                var outcome = LeaseOutcome()
                outcome.acquired = [HeldLease(shard: 2, generation: 1), HeldLease(shard: 3, generation: 1)]
                return outcome
            }(), startedAt: .zero)
        // b holds as many as a and has the greater ID: b releases one, a keeps both.
        #expect(Self.tick(&a, &table, at: .seconds(1)).released == [])
        #expect(Self.tick(&b, &table, at: .seconds(1)).released == [HeldLease(shard: 3, generation: 1)])
        #expect(table.shards.map(\.owner) == ["a", "a", "b", ""])
    }

    @Test func aMemberWhoseHeartbeatStopsIsNoLongerCountedLive() {
        var a = Self.machine("a")
        var table = Self.table(["", "", "", ""], members: [("b", 3)])
        a.observe(table, at: .zero)
        #expect(a.liveMembers(at: .seconds(14)) == ["a", "b"])
        #expect(a.liveMembers(at: .seconds(15)) == ["a"])
        #expect(a.deadMembers(at: .seconds(44), for: .seconds(30)) == [])
        #expect(a.deadMembers(at: .seconds(45), for: .seconds(30)) == ["b"])
        table.members[0].heartbeat = 4
        a.observe(table, at: .seconds(16))
        #expect(a.liveMembers(at: .seconds(16)) == ["a", "b"])
    }
}
