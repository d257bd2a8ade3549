import FirestoreREST

/// What makes two queries one feed: the parent's full resource name, the canonical `StructuredQuery` (its REST JSON,
/// members sorted, as `runQuery` sends it) and the limit kind (`limit(toLast:)` is sent with its orders reversed and
/// read back in the query's own order). Listeners of one identity share a Listen target or a poller, and a checkpoint
/// written for one identity is never resumed by a query of another (its stored documents would be a different
/// result).
package struct QueryIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The parent's full resource name, `projects/{p}/databases/{d}/documents[/{path}]`.
    package let parent: String
    /// The canonical `StructuredQuery`, REST JSON with sorted members.
    package let structuredQuery: String
    /// Whether the query is `limit(toLast:)`.
    package let limitToLast: Bool
    /// The same `StructuredQuery` as protobuf bytes (``StructuredQuery/protobuf()``), what a Listen target sends: the
    /// query is resolved once and printed once for each wire, however often its target is added again.
    package let structuredQueryProtobuf: [UInt8]

    /// The identity of `query`.
    /// - Throws: `FirestoreError` `.invalidArgument` when the query cannot be encoded for either wire (a feed then
    ///   ends before anything is sent).
    package init(_ query: Query) throws(FirestoreError) {
        parent = query.firestore.database.resourceName(of: try query.parentPath())
        let structured = try query.structured()
        structuredQuery = structured.restJSON.serializedString()
        structuredQueryProtobuf = try structured.protobuf()
        limitToLast = query.limitType == .last
    }

    /// `PARENT STRUCTURED_QUERY[ limitToLast]`: the form a checkpoint stores and `watch --checkpoint` takes as its
    /// default key.
    package var description: String {
        parent + " " + structuredQuery + (limitToLast ? " limitToLast" : "")
    }
}
