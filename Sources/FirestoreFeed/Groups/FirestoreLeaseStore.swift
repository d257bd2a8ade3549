import FirestoreREST

/// A feed group's leases and members in Firestore: `{group}/shards/{n}` and `{group}/members/{id}` under the
/// group's document. Reads are one query per collection; every write is one transaction.
package struct FirestoreLeaseStore: LeaseStore {
    package let group: DocumentReference
    package let shards: Int
    package let leaseDuration: Duration

    package init(group: DocumentReference, shards: Int, leaseDuration: Duration) {
        (self.group, self.shards, self.leaseDuration) = (group, shards, leaseDuration)
    }

    package func shardDocument(_ shard: Int) -> DocumentReference { group.collection("shards").document("\(shard)") }

    package func memberDocument(_ id: String) -> DocumentReference { group.collection("members").document(id) }

    /// Every lease (a shard with no document yet is free) and every member.
    /// - Throws: the queries' errors; `.dataLoss` for a lease or member document of another shape.
    package func read() async throws(FirestoreError) -> LeaseTable {
        try await GroupErrors.typed {
            async let leaseDocuments = group.collection("shards").getDocuments()
            async let memberDocuments = group.collection("members").getDocuments()
            var leases = (0..<shards).map { ShardLease(shard: $0) }
            for snapshot in try await leaseDocuments.documents {
                guard let shard = Int(snapshot.documentID), leases.indices.contains(shard) else { continue }
                leases[shard] = try LeaseRecordCodec.lease(snapshot, shard: shard)
            }
            let members = try await memberDocuments.documents.compactMap { try LeaseRecordCodec.member($0) }
            return LeaseTable(shards: leases, members: members)
        }
    }

    /// One transaction: reads the member and the leases `plan` names, writes what
    /// ``LeaseWrites/resolve(_:current:member:checkpoints:)`` decides, moves the member's heartbeat and deletes
    /// the records of `deadMembers`.
    /// - Throws: the transaction's error (contention is retried by `runTransaction`).
    package func write(
        _ plan: LeasePlan, member: String, checkpoints: [Int: ShardCheckpoint], deadMembers: [String]
    ) async throws(FirestoreError) -> LeaseOutcome {
        let named = Array(Set((plan.renew + plan.release).map(\.shard) + plan.acquire.map(\.shard))).sorted()
        let expireTime = Timestamp.now().subtracting(.zero - leaseDuration)
        return try await GroupErrors.typed {
            try await group.firestore.runTransaction { transaction in
                let memberReference = memberDocument(member)
                let read = try await transaction.getDocuments([memberReference] + named.map(shardDocument))
                var current: [Int: ShardLease] = [:]
                for (shard, snapshot) in zip(named, read.dropFirst()) {
                    current[shard] = try LeaseRecordCodec.lease(snapshot, shard: shard)
                }
                let (writes, outcome) = LeaseWrites.resolve(
                    plan, current: current, member: member, checkpoints: checkpoints)
                for lease in writes {
                    try transaction.setData(
                        LeaseRecordCodec.fields(of: lease, expireTime: expireTime),
                        forDocument: shardDocument(lease.shard))
                }
                let heartbeat = try read.first.flatMap { try LeaseRecordCodec.member($0) }?.heartbeat ?? 0
                try transaction.setData(
                    ["heartbeat": .value(.integer(heartbeat + 1)), "expireTime": .value(.timestamp(expireTime))],
                    forDocument: memberReference)
                for dead in deadMembers where dead != member {
                    try transaction.deleteDocument(memberDocument(dead))
                }
                return outcome
            }
        }
    }
}
