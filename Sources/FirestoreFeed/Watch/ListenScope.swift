import FirestoreREST

/// Which documents a query target may hold: those whose name lies in the query's collection (`from`) under its
/// parent. A Listen response that puts any other document into the target (another project, database, parent or
/// collection) is a protocol error, not data (`WatchChangeAggregator`).
package struct ListenScope: Sendable, Hashable, CustomStringConvertible {
    /// The parent's resource name, `projects/{p}/databases/{d}/documents[/{path}]`.
    package let parent: String
    /// The collection ID the query reads (`StructuredQuery.from.collection_id`).
    package let collectionID: String
    /// Whether every collection of that ID below the parent is read (a collection group).
    package let allDescendants: Bool

    /// The scope of `query`.
    /// - Throws: `FirestoreError` `.invalidArgument` when the query's parent cannot be resolved.
    package init(_ query: Query) throws(FirestoreError) {
        parent = query.firestore.database.resourceName(of: try query.parentPath())
        collectionID = query.collectionID
        allDescendants = query.allDescendants
    }

    /// Whether the document named `name` (a full resource name) lies in the scope: directly in
    /// `{parent}/{collectionID}`, or for a collection group in any `.../{collectionID}/{id}` below the parent.
    /// - Complexity: O(n) in the length of the name.
    package func contains(_ name: String) -> Bool {
        guard name.hasPrefix(parent + "/") else { return false }
        let segments = name.dropFirst(parent.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 2, segments.count % 2 == 0, !segments.contains(where: \.isEmpty) else { return false }
        if allDescendants { return segments[segments.count - 2] == collectionID }
        return segments.count == 2 && segments[0] == collectionID
    }

    /// `collection "fruits" under projects/p/databases/d/documents`.
    package var description: String {
        (allDescendants ? "collection group \"" : "collection \"") + collectionID + "\" under " + parent
    }
}
