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
    /// Whether the parent and the collection ID are ASCII: then an ASCII name is checked on its bytes.
    private let isASCII: Bool

    /// The scope of `query`.
    /// - Throws: `FirestoreError` `.invalidArgument` when the query's parent cannot be resolved.
    package init(_ query: Query) throws(FirestoreError) {
        parent = query.firestore.database.resourceName(of: try query.parentPath())
        collectionID = query.collectionID
        allDescendants = query.allDescendants
        isASCII = parent.utf8.allSatisfy { $0 < 0x80 } && collectionID.utf8.allSatisfy { $0 < 0x80 }
    }

    /// Whether the document named `name` (a full resource name) lies in the scope: directly in
    /// `{parent}/{collectionID}`, or for a collection group in any `.../{collectionID}/{id}` below the parent.
    /// - Complexity: O(n) in the length of the name.
    package func contains(_ name: String) -> Bool {
        if isASCII, let contained = name.utf8.withContiguousStorageIfAvailable(containsASCII), let contained {
            return contained
        }
        guard name.hasPrefix(parent + "/") else { return false }
        let segments = name.dropFirst(parent.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 2, segments.count % 2 == 0, !segments.contains(where: \.isEmpty) else { return false }
        if allDescendants { return segments[segments.count - 2] == collectionID }
        return segments.count == 2 && segments[0] == collectionID
    }

    /// ``contains(_:)`` on the bytes of an ASCII name (one byte per `Character`, so the same answer, without building
    /// strings or splitting), or `nil` when the name is not ASCII.
    private func containsASCII(_ name: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard name.allSatisfy({ $0 < 0x80 }) else { return nil }
        let slash = UInt8(ascii: "/")
        let prefix = parent.utf8.count
        guard name.count > prefix, name[prefix] == slash,
            parent.utf8.withContiguousStorageIfAvailable({ $0.elementsEqual(name.prefix(prefix)) })
                ?? name.starts(with: parent.utf8)
        else { return false }
        // The segments after `{parent}/`: how many, the first, and the last two.
        var count = 0
        var first: Range<Int>?
        var previous: Range<Int>?
        var last: Range<Int>?
        var start = prefix + 1
        for index in start...name.count where index == name.count || name[index] == slash {
            guard start < index else { return false }  // an empty segment
            count += 1
            if first == nil { first = start..<index }
            (previous, last) = (last, start..<index)
            start = index + 1
        }
        guard count >= 2, count % 2 == 0 else { return false }
        func isCollection(_ segment: Range<Int>?) -> Bool {
            segment.map { collectionID.utf8.elementsEqual(UnsafeBufferPointer(rebasing: name[$0])) } ?? false
        }
        return allDescendants ? isCollection(previous) : count == 2 && isCollection(first)
    }

    /// `collection "fruits" under projects/p/databases/d/documents`.
    package var description: String {
        (allDescendants ? "collection group \"" : "collection \"") + collectionID + "\" under " + parent
    }
}
