import FirestoreREST

/// Where a feed group's leases and members live: Firestore (``FirestoreLeaseStore``) or, in tests, memory.
package protocol LeaseStore: Sendable {
    /// Every lease and member, read at one time.
    func read() async throws(FirestoreError) -> LeaseTable

    /// Writes `plan` for `member` atomically, against the leases as stored when it commits (``LeaseWrites/resolve(_:current:member:checkpoints:)``
    /// against the leases as stored), with the member's heartbeat moved (its record deleted when `leaving`, so the
    /// other members count it gone at once), and the records of `deadMembers` deleted.
    func write(
        _ plan: LeasePlan, member: String, checkpoints: [Int: ShardCheckpoint], deadMembers: [String], leaving: Bool
    ) async throws(FirestoreError) -> LeaseOutcome
}

extension LeaseStore {
    /// ``write(_:member:checkpoints:deadMembers:leaving:)`` of a member that stays.
    package func write(
        _ plan: LeasePlan, member: String, checkpoints: [Int: ShardCheckpoint], deadMembers: [String]
    ) async throws(FirestoreError) -> LeaseOutcome {
        try await write(plan, member: member, checkpoints: checkpoints, deadMembers: deadMembers, leaving: false)
    }
}
