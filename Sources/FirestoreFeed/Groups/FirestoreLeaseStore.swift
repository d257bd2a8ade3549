import FirestoreREST

/// A feed group's leases and members in Firestore: `{group}/shards/{n}` and `{group}/members/{id}` under the
/// group's document. Reads are one query per collection; every write is one compare-and-set commit
/// (``write(_:member:checkpoints:deadMembers:leaving:)``).
package struct FirestoreLeaseStore: LeaseStore {
    package let group: DocumentReference
    package let shards: Int
    package let leaseDuration: Duration
    /// The group's incarnation (its document's create time), written into every lease.
    package let incarnation: Timestamp?

    package init(group: DocumentReference, shards: Int, leaseDuration: Duration, incarnation: Timestamp? = nil) {
        (self.group, self.shards, self.leaseDuration, self.incarnation) = (group, shards, leaseDuration, incarnation)
    }

    package func shardDocument(_ shard: Int) -> DocumentReference { group.collection("shards").document("\(shard)") }

    package func memberDocument(_ id: String) -> DocumentReference { group.collection("members").document(id) }

    /// Every lease (a shard with no document yet is free), every member, and the group's document (so that a member
    /// notices at its next renewal that the group was deleted or created again: one billed read).
    /// - Throws: the reads' errors; `.dataLoss` for a lease, member or group document of another shape.
    package func read() async throws(FirestoreError) -> LeaseTable {
        try await GroupErrors.typed {
            async let groupDocument = group.getDocument()
            async let leaseDocuments = group.collection("shards").getDocuments()
            async let memberDocuments = group.collection("members").getDocuments()
            var leases = (0..<shards).map { ShardLease(shard: $0) }
            for snapshot in try await leaseDocuments.documents {
                guard let shard = Int(snapshot.documentID), leases.indices.contains(shard) else { continue }
                leases[shard] = try LeaseRecordCodec.lease(snapshot, shard: shard)
            }
            let members = try await memberDocuments.documents.compactMap { try LeaseRecordCodec.member($0) }
            let definition = try FeedGroupDefinition.decode(try await groupDocument)
            return LeaseTable(
                shards: leases, members: members, group: definition.map { .present($0) } ?? .missing)
        }
    }

    /// How many times ``write(_:member:checkpoints:deadMembers:leaving:)`` reads and commits again when another member
    /// changed a document between its read and its commit.
    package static let attempts = 5

    /// One compare-and-set: reads the member and the leases `plan` names (a plain read, which takes no lock), then
    /// commits what ``LeaseWrites/resolve(_:current:member:checkpoints:)`` decides, the member's heartbeat moved and
    /// the records of `deadMembers` deleted, in one atomic commit whose every lease and member write carries the
    /// read's `updateTime` (`exists: false` for a document that was missing) as its precondition. When another
    /// member wrote one of them in between, nothing is written and the read and commit are made again. A member
    /// `leaving` deletes its own record in the same commit instead of moving its heartbeat: the others count it
    /// gone at once and take its shards beyond their fair share of the members left.
    ///
    /// Not a transaction, on purpose: a transaction holds its reads' locks until it commits, rolls back or has
    /// been idle for 60 s, so a member killed in the middle of one kept every other member from writing those
    /// leases for a minute (measured on the emulator: a write to a document read by an abandoned transaction
    /// waited 2 s and was refused with `ABORTED` "Transaction lock timeout" until 60.7 s had passed). A commit
    /// holds no lock after it returns. (REST reference: `Precondition`, `projects.databases.documents.commit`.)
    /// - Throws: `FirestoreError` `.aborted` when the documents changed under all ``attempts`` (the member retries
    ///   at its next renewal); `.dataLoss` for a lease or member document of another shape; the reads' and the
    ///   commit's other errors.
    /// - Complexity: one batch read and one commit per attempt.
    package func write(
        _ plan: LeasePlan, member: String, checkpoints: [Int: ShardCheckpoint], deadMembers: [String], leaving: Bool
    ) async throws(FirestoreError) -> LeaseOutcome {
        let named = Array(Set((plan.renew + plan.release).map(\.shard) + plan.acquire.map(\.shard))).sorted()
        let memberReference = memberDocument(member)
        var attempt = 0
        while true {
            attempt += 1
            let read = try await GroupErrors.typed {
                try await group.firestore.getAll([memberReference] + named.map(shardDocument))
            }
            // The shard documents as read, by shard: their leases to decide on, their update times to commit against.
            let versions = Dictionary(uniqueKeysWithValues: zip(named, read.dropFirst()))
            var current: [Int: ShardLease] = [:]
            for (shard, snapshot) in versions { current[shard] = try LeaseRecordCodec.lease(snapshot, shard: shard) }
            var (leases, outcome) = LeaseWrites.resolve(
                plan, current: current, member: member, checkpoints: checkpoints, incarnation: incarnation)
            let expireTime = Timestamp.now().subtracting(.zero - leaseDuration)
            var writes: [Write] = []
            for lease in leases {
                writes.append(
                    try Self.write(
                        LeaseRecordCodec.fields(of: lease, expireTime: expireTime), to: shardDocument(lease.shard),
                        as: versions[lease.shard]))
            }
            if leaving {
                writes.append(.delete(path: try memberReference.resourcePath(), precondition: nil))
            } else {
                let heartbeat = try read.first.map(LeaseRecordCodec.member)??.heartbeat ?? 0
                writes.append(
                    try Self.write(
                        ["heartbeat": .integer(heartbeat + 1), "expireTime": .timestamp(expireTime)],
                        to: memberReference, as: read.first))
                outcome.heartbeat = heartbeat + 1
            }
            for dead in deadMembers where dead != member {
                writes.append(.delete(path: try memberDocument(dead).resourcePath(), precondition: nil))
            }
            do throws(FirestoreError) {
                _ = try await GroupErrors.typed { try await group.firestore.commit(writes) }
                return outcome
            } catch {
                guard Self.changedMeanwhile(error.code) else { throw error }
                guard attempt < Self.attempts else {
                    throw FirestoreError(
                        code: .aborted,
                        message: "the leases of feed group \(group.path) changed between the read and the commit "
                            + "\(attempt) times in a row (last: \(error.message)); the member tries again at its "
                            + "next renewal")
                }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 10...50) * attempt))
            }
        }
    }

    /// The codes of a commit refused because a document changed since it was read: a stale `updateTime`, a
    /// create of a document made meanwhile, an update of one deleted meanwhile, a lock held for a moment by
    /// another member's commit.
    static func changedMeanwhile(_ code: FirestoreError.Code) -> Bool {
        [.failedPrecondition, .alreadyExists, .notFound, .aborted].contains(code)
    }

    /// A write of `fields` to `document` replacing it whole, on condition that it is still as `snapshot` saw it.
    static func write(
        _ fields: [String: FirestoreValue], to document: DocumentReference, as snapshot: DocumentSnapshot?
    )
        throws(FirestoreError) -> Write
    {
        let precondition: Precondition =
            if let snapshot, snapshot.exists, let updateTime = snapshot.updateTime {
                .updateTime(updateTime)
            } else {
                .exists(false)
            }
        return .update(path: try document.resourcePath(), fields: fields, mask: nil, precondition: precondition)
    }
}
