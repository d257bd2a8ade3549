/// What one member writes at one tick, each lease write checked against what the member expects to find.
package struct LeasePlan: Sendable, Hashable {
    /// Leases the member holds and renews: it expects to find itself the owner at this generation.
    package var renew: [HeldLease] = []
    /// Leases the member takes, each free or expired at the version it was observed at; the write is made only if
    /// the lease is still at that version.
    package var acquire: [(shard: Int, expected: LeaseVersion)] = []
    /// Leases the member gives up (over its fair share, or its last checkpoint at shutdown).
    package var release: [HeldLease] = []
    /// Leases the member held that the table shows taken by another member or at another generation: it stops
    /// delivering them at once, and writes nothing for them.
    package var lost: [HeldLease] = []
    /// The highest generation the member has seen for each shard: an acquisition takes a generation above both it
    /// and the stored one, so a generation never repeats even when a lease document was rewritten by hand.
    package var generationFloors: [Int: Int64] = [:]

    package init() {}

    package static func == (lhs: LeasePlan, rhs: LeasePlan) -> Bool {
        lhs.renew == rhs.renew && lhs.release == rhs.release && lhs.lost == rhs.lost
            && lhs.acquire.map(\.shard) == rhs.acquire.map(\.shard)
            && lhs.acquire.map(\.expected) == rhs.acquire.map(\.expected)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(renew)
        hasher.combine(release)
        hasher.combine(acquire.map(\.shard))
    }
}

/// A lease a member holds: the shard and the generation it acquired it at.
package struct HeldLease: Sendable, Hashable {
    package var shard: Int
    package var generation: Int64

    package init(shard: Int, generation: Int64) { (self.shard, self.generation) = (shard, generation) }
}

/// What the store did with a plan: the writes it made, the ones it refused because the lease was not as expected.
package struct LeaseOutcome: Sendable, Hashable {
    /// Renewed and released leases, and acquired ones at their new generation.
    package var renewed: [HeldLease] = []
    package var acquired: [HeldLease] = []
    package var released: [HeldLease] = []
    /// Leases the store found taken by another member (a renewal or release refused), with the owner it found.
    package var lost: [HeldLease] = []
    /// Acquisitions refused: another member wrote the lease first.
    package var missed: [Int] = []
    /// The heartbeat written to the member's record, when the store wrote one.
    package var heartbeat: Int64?

    package init() {}
}
