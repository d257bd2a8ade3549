import FirestoreWire

extension Query {
    /// Splits this collection-group query into parts of roughly equal size that can be read in parallel (Node.js
    /// `CollectionGroup.getPartitions`): POST `{parent}:partitionQuery` with the query ordered by `__name__` and
    /// `partitionCount` = `desiredPartitionCount - 1` split points, every page, over the client's protocol (gRPC
    /// `PartitionQuery`, or REST; REST reference:
    /// `projects.databases.documents.partitionQuery`, https://cloud.google.com/firestore/docs/reference/rest/v1/projects.databases.documents/partitionQuery).
    /// The points come back sorted by document name and without repeats, so the parts never overlap.
    ///
    /// - Parameter desiredPartitionCount: at least 1; the server may return fewer parts (1 when the result is small).
    /// - Returns: the parts in order, from the start of the result to its end; always at least one.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a count below 1, a query that is not a collection group
    ///   (``Firestore/collectionGroup(_:)``), or one with orders, a limit, an offset or cursors of its own; the
    ///   server's error otherwise (the Firestore emulator implements PartitionQuery on neither wire and answers
    ///   `.unimplemented`: HTTP 501 over REST, `grpc-status` 12 over gRPC; an ``FirestoreProtocol/automatic``
    ///   client then tries REST and keeps gRPC for its other calls, `RPCListLiveTests`); `.internal` (REST) or
    ///   `.dataLoss` (gRPC) for a split point that is not one document reference.
    /// - Complexity: one request per page of split points.
    public func getPartitions(desiredPartitionCount: Int) async throws -> [QueryPartition] {
        guard desiredPartitionCount >= 1 else {
            throw FirestoreError.invalidArgument(
                "getPartitions needs desiredPartitionCount >= 1, not \(desiredPartitionCount)")
        }
        guard allDescendants else {
            throw FirestoreError.invalidArgument(
                "getPartitions works on a collection-group query (Firestore.collectionGroup), not on collection "
                    + "\"\(collectionID)\"")
        }
        guard orders.isEmpty, limit == nil, offset == nil, start == nil, end == nil else {
            throw FirestoreError.invalidArgument(
                "getPartitions works on a collection-group query without orders, limit, offset or cursors")
        }
        let ordered = order(by: .documentID)
        var points: [FirestoreValue] = []
        if desiredPartitionCount > 1 {
            let structuredQuery = try ordered.structured()
            let parent = try parentPath()
            let what = "partitionQuery of collection group \"\(collectionID)\""
            points = try await firestore.collectDecodedPages(what) { pageToken in
                try await firestore.partitionQueryPage(
                    parent: parent, structuredQuery: structuredQuery, partitionCount: desiredPartitionCount - 1,
                    pageToken: pageToken, what: what)
            }
        }
        var names: [String] = []
        for case .reference(let name) in points { names.append(name) }
        names = Array(Set(names)).sorted { FirestoreValue.compareResourceNames($0, $1) < 0 }
        var partitions: [QueryPartition] = []
        var previous: [FirestoreValue]?
        for name in names {
            let point: [FirestoreValue] = [.reference(name)]
            partitions.append(QueryPartition(query: ordered, startAt: previous, endBefore: point))
            previous = point
        }
        partitions.append(QueryPartition(query: ordered, startAt: previous, endBefore: nil))
        return partitions
    }
}
