import FirestoreREST

/// One shard's lease as a feed group stores it (the document `{root}/{group}/shards/{shard}`).
package struct ShardLease: Sendable, Hashable {
    /// The shard, `0..<shards`.
    package var shard: Int
    /// The member holding it; empty when no member does.
    package var owner: String
    /// The fencing generation: grows by one at every acquisition, never goes back.
    package var generation: Int64
    /// Grows by one at every write of the lease (acquire, renew, release): a member that sees it unchanged for a
    /// lease length takes the lease as expired, by its own clock.
    package var heartbeat: Int64
    /// The shard's checkpoint: where the next owner resumes.
    package var checkpoint: ShardCheckpoint?
    /// The incarnation of the group (its document's create time) the lease was last written under; `nil` for a
    /// lease written before incarnations were recorded. A checkpoint of another incarnation is of other split
    /// points, and is not resumed from.
    package var incarnation: Timestamp?

    package init(
        shard: Int, owner: String = "", generation: Int64 = 0, heartbeat: Int64 = 0,
        checkpoint: ShardCheckpoint? = nil, incarnation: Timestamp? = nil
    ) {
        self.shard = shard
        self.owner = owner
        self.generation = generation
        self.heartbeat = heartbeat
        self.checkpoint = checkpoint
        self.incarnation = incarnation
    }

    /// What a member compares to tell whether the lease was written since it last looked.
    package var version: LeaseVersion { LeaseVersion(owner: owner, generation: generation, heartbeat: heartbeat) }
}

/// The part of a lease that every write changes: the owner, the generation and the heartbeat.
package struct LeaseVersion: Sendable, Hashable {
    package var owner: String
    package var generation: Int64
    package var heartbeat: Int64

    package init(owner: String, generation: Int64, heartbeat: Int64) {
        (self.owner, self.generation, self.heartbeat) = (owner, generation, heartbeat)
    }
}

/// Where a shard's next owner resumes: the read time of the last acknowledged snapshot and, for a Listen target, its
/// resume token.
package struct ShardCheckpoint: Sendable, Hashable {
    package var readTime: Timestamp
    package var resumeToken: [UInt8]?

    package init(readTime: Timestamp, resumeToken: [UInt8]?) {
        (self.readTime, self.resumeToken) = (readTime, resumeToken)
    }
}

/// A member of a feed group as stored (`{root}/{group}/members/{id}`): alive while its heartbeat moves.
package struct GroupMember: Sendable, Hashable {
    package var id: String
    package var heartbeat: Int64

    package init(id: String, heartbeat: Int64) { (self.id, self.heartbeat) = (id, heartbeat) }
}

/// Every lease and member of a group, as read at one time, and the group's document as read with them.
package struct LeaseTable: Sendable, Hashable {
    /// The group's document as a renewal reads it.
    package enum GroupDocument: Sendable, Hashable {
        /// Not read (a store that does not read it).
        case notRead
        /// Read, and it does not exist.
        case missing
        case present(FeedGroupDefinition)
    }

    package var shards: [ShardLease]
    package var members: [GroupMember]
    package var group: GroupDocument

    package init(shards: [ShardLease], members: [GroupMember], group: GroupDocument = .notRead) {
        (self.shards, self.members, self.group) = (shards, members, group)
    }
}
