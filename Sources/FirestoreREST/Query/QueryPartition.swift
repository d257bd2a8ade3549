import FirestoreWire

/// One part of a collection-group query split by ``Query/getPartitions(desiredPartitionCount:)``: the documents
/// from ``startAt`` (inclusive) to ``endBefore`` (exclusive) in `__name__` order; `nil` is the start or the end of
/// the whole result (Node.js `QueryPartition`).
public struct QueryPartition: Sendable {
    /// The query partitioned (ordered by `__name__`).
    public let query: Query
    /// The first document of this part (a `.reference` value), or `nil` for the first part.
    public let startAt: [FirestoreValue]?
    /// The first document after this part, or `nil` for the last part.
    public let endBefore: [FirestoreValue]?

    /// The query of this part: ``query`` from ``startAt`` to before ``endBefore``.
    public func toQuery() -> Query {
        var part = query
        if let startAt { part = part.start(at: startAt) }
        if let endBefore { part = part.end(before: endBefore) }
        return part
    }
}
