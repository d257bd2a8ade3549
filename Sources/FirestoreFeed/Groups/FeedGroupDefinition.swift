import FirestoreREST

/// A feed group's document (`{root}/{group}`): the query it watches (its identity), the number of shards and
/// their split points, fixed when the group is created, and the document's create time (its incarnation: a group
/// deleted and created again is another group, even with the same split points).
package struct FeedGroupDefinition: Sendable, Hashable {
    package let query: String
    package let ranges: ShardRanges
    /// The group document's `createTime`, as the server set it; `nil` when it is not known.
    package var incarnation: Timestamp?

    package init(query: String, ranges: ShardRanges, incarnation: Timestamp? = nil) {
        (self.query, self.ranges, self.incarnation) = (query, ranges, incarnation)
    }

    /// The group's definition: read from its document, or, when there is none, created from `query` split into
    /// `shards` (``ShardRanges/splitPoints(of:shards:)``) by a create that only one member starting at the same
    /// time can make, so members starting together agree.
    /// - Parameter shards: the shard count to create the group with; `nil` takes the stored one (a group that
    ///   does not exist yet then has 1).
    /// - Throws: `FirestoreError` `.failedPrecondition` when the document holds another query or another shard
    ///   count; `.dataLoss` when it is not a group's document; `.invalidArgument` for shards outside 1...1,000 or
    ///   a query with a limit, offset or cursors; the reads' and the create's errors.
    package static func load(_ document: DocumentReference, query: Query, shards: Int?) async throws(FirestoreError)
        -> FeedGroupDefinition
    {
        try ShardRanges.check(query)
        if let shards, !(1...1000).contains(shards) {
            throw .invalidArgument("a feed group has 1 to 1,000 shards, not \(shards)")
        }
        let identity = try QueryIdentity(query).description
        if let stored = try await read(document) {
            return try stored.checked(against: identity, shards: shards, document: document)
        }
        let count = shards ?? 1
        let points = try await ShardRanges.splitPoints(of: query, shards: count)
        var created = FeedGroupDefinition(query: identity, ranges: ShardRanges(splitPoints: points, shards: count))
        // A create, not a transaction: a member killed inside a transaction would keep the group's document
        // locked for the transaction's 60 s idle time (``FirestoreLeaseStore/write(_:member:checkpoints:deadMembers:leaving:)``).
        let result: FeedGroupDefinition
        do {
            let written = try await GroupErrors.typed {
                try await document.create(
                    [
                        "query": .value(.string(identity)), "shards": .value(.integer(Int64(count))),
                        "splitPoints": .value(.array(points.map(FirestoreValue.reference))),
                        "createTime": .serverTimestamp,
                    ])
            }
            // A created document's first update time is its create time.
            created.incarnation = written.updateTime
            result = created
        } catch  where error.code == .alreadyExists {
            // Another member created it first: its definition is the group's.
            guard let stored = try await read(document) else {
                throw FirestoreError(
                    code: .aborted,
                    message:
                        "feed group \(document.path) was created and deleted while this member started; start it again")
            }
            result = stored
        }
        return try result.checked(against: identity, shards: shards, document: document)
    }

    private func checked(against identity: String, shards: Int?, document: DocumentReference) throws(FirestoreError)
        -> FeedGroupDefinition
    {
        guard query == identity else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "feed group \(document.path) watches another query (\(query)), not \(identity): choose "
                    + "another group name, or delete the group's documents to start it again")
        }
        if let shards, shards != ranges.shards {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "feed group \(document.path) was created with \(ranges.shards) shards, not \(shards): the "
                    + "count is fixed when the group is created")
        }
        return self
    }

    private static func read(_ document: DocumentReference) async throws(FirestoreError) -> FeedGroupDefinition? {
        try await GroupErrors.typed { try decode(try await document.getDocument()) }
    }

    /// The definition `snapshot` holds, or `nil` when the document does not exist.
    /// - Throws: `FirestoreError` `.dataLoss` when it is not a group's document.
    package static func decode(_ snapshot: DocumentSnapshot) throws(FirestoreError) -> FeedGroupDefinition? {
        guard let fields = snapshot.data() else { return nil }
        guard case .string(let query)? = fields["query"], case .integer(let shards)? = fields["shards"],
            (1...1000).contains(shards), case .array(let values)? = fields["splitPoints"]
        else {
            throw FirestoreError(
                code: .dataLoss,
                message: "\(snapshot.reference.path) is not a feed group's document (it needs query, shards and "
                    + "splitPoints)")
        }
        var points: [String] = []
        for case .reference(let name) in values { points.append(name) }
        guard points.count == values.count, points.count < shards else {
            throw FirestoreError(
                code: .dataLoss, message: "\(snapshot.reference.path): splitPoints must be fewer references than shards"
            )
        }
        return FeedGroupDefinition(
            query: query, ranges: ShardRanges(splitPoints: points, shards: Int(shards)),
            incarnation: snapshot.createTime)
    }

    /// Why `seen` (the group's document read at a renewal) is not this definition, or `nil` when it is: the
    /// document was deleted, or created again, or holds another query or other shards.
    package func mismatch(_ seen: FeedGroupDefinition?, document: DocumentReference) -> String? {
        guard let seen else { return "feed group \(document.path)'s document was deleted while this member ran" }
        if let incarnation, let other = seen.incarnation, incarnation != other {
            return "feed group \(document.path) was created again (at \(other.rfc3339); this member's group was "
                + "created at \(incarnation.rfc3339)) while this member ran"
        }
        guard seen.query == query, seen.ranges == ranges else {
            return "feed group \(document.path)'s document was changed (its query, shards or split points) while "
                + "this member ran"
        }
        return nil
    }
}
