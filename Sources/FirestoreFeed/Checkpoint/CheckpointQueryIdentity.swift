import FirestoreREST

/// What a checkpoint was written for: the query's parent (its full resource name), its canonical `StructuredQuery` (REST JSON, members
/// sorted) and its limit kind, as one string. A key holding another query's checkpoint is refused, never resumed
/// from (its stored documents would be a different result). The same string is `watch --checkpoint`'s default key.
package enum CheckpointQueryIdentity {
    /// The identity of `query`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when the query cannot be encoded.
    package static func of(_ query: Query) throws(FirestoreError) -> String {
        let path = try query.parentPath().description
        let root = query.firestore.database.documentsRoot
        let parent = path.isEmpty ? root : root + "/" + path
        let structured = try query.structuredQuery().serializedString()
        return parent + " " + structured + (query.limitType == .last ? " limitToLast" : "")
    }
}
