import FirestoreREST

/// A feed group's query split into shards by document name: shard 0 is every document before the first split
/// point, shard `i` from split point `i - 1` (inclusive) to split point `i` (exclusive), the last one from the last
/// point on. Every document of the query is in exactly one shard, whenever it was created.
package struct ShardRanges: Sendable, Hashable {
    /// The split points, full document resource names in `__name__` order (shards - 1 of them, or fewer when the
    /// query held fewer documents than shards when the group was created: the shards after them are empty ranges
    /// at the end and stay idle).
    package let splitPoints: [String]
    package let shards: Int

    package init(splitPoints: [String], shards: Int) {
        self.splitPoints = splitPoints
        self.shards = shards
    }

    /// Checks that `query` can be a group's query: no limit, offset or cursors (a shard is a name range of the
    /// whole result).
    /// - Throws: `FirestoreError` `.invalidArgument` naming what the query has.
    package static func check(_ query: Query) throws(FirestoreError) {
        if query.limit != nil || query.offset != nil || query.hasCursors {
            throw .invalidArgument(
                "a feed group watches a whole query, split by document name: it cannot have a limit, an offset or "
                    + "cursors")
        }
    }

    /// The shard's query: `query`'s filters, restricted to the shard's name range, ordered by `__name__` (the
    /// query's own orders are replaced: Firestore orders a name range by name).
    package func query(for shard: Int, of query: Query) -> Query {
        var part = query.orderedByName()
        let points = splitPoints
        if shard > 0, shard - 1 < points.count {
            part = part.whereFilter(
                .whereField(FieldPath.documentID, .greaterThanOrEqual, FirestoreValue.reference(points[shard - 1])))
        }
        if shard < points.count {
            part = part.whereFilter(
                .whereField(FieldPath.documentID, .lessThan, FirestoreValue.reference(points[shard])))
        } else if shard > points.count, let last = points.last {
            // An empty range after the last point: from the last point to before it.
            part = part.whereFilter(
                .whereField(FieldPath.documentID, .greaterThanOrEqual, FirestoreValue.reference(last))
            )
            .whereFilter(.whereField(FieldPath.documentID, .lessThan, FirestoreValue.reference(last)))
        }
        return part
    }

    /// Whether `shard` is an empty range (after the last split point of a group created on fewer documents than
    /// shards): it has no Listen target.
    package func isEmpty(_ shard: Int) -> Bool { shard > splitPoints.count }

    /// The shard holding the document named `name` (a full resource name).
    /// - Complexity: O(log shards).
    package func shard(of name: String) -> Int {
        var low = 0
        var high = splitPoints.count
        while low < high {
            let middle = (low + high) / 2
            if FirestoreValue.compareResourceNames(splitPoints[middle], name) <= 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// `shards - 1` split points for `query`: from `PartitionQuery` where the server offers it (a collection-group
    /// query without filters in production), otherwise from a keys-only scan of the query in name order (billed:
    /// one read per document, once, when the group is created), every `count / shards`-th name.
    /// - Throws: the scan's errors.
    package static func splitPoints(of query: Query, shards: Int) async throws(FirestoreError) -> [String] {
        guard shards > 1 else { return [] }
        if query.allDescendants, query.filters.isEmpty, query.orders.isEmpty {
            do {
                let parts = try await query.getPartitions(desiredPartitionCount: shards)
                let points = parts.compactMap { part -> String? in
                    guard case .reference(let name)? = part.endBefore?.first else { return nil }
                    return name
                }
                if points.count == shards - 1 { return points }
            } catch {
                // The emulator answers 501, and a small result has fewer points: scan instead.
            }
        }
        return try await GroupErrors.typed {
            var names: [String] = []
            for try await document in query.orderedByName().select(fields: []).stream() {
                if let name = document.document?.name { names.append(name) }
            }
            let points = evenlySpaced(names, shards: shards)
            if points.count < shards - 1, !query.allDescendants, let parent = try? query.parentPath() {
                // Too few documents to split: split the space of auto-IDs instead (20 characters of [0-9A-Za-z],
                // uniformly random), which is where a growing collection's documents will land.
                return autoIDPoints(
                    collection: query.firestore.database.resourceName(of: parent) + "/" + query.collectionID,
                    shards: shards)
            }
            return points
        }
    }

    /// The auto-ID alphabet in byte order.
    static let autoIDAlphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// `shards - 1` points splitting the auto-IDs of `collection` (a full resource name) evenly by first character
    /// (at most 62 shards; more get repeats removed).
    package static func autoIDPoints(collection: String, shards: Int) -> [String] {
        var points: [String] = []
        for index in 1..<max(shards, 1) {
            let character = autoIDAlphabet[min(index * autoIDAlphabet.count / shards, autoIDAlphabet.count - 1)]
            let point = collection + "/" + String(character)
            if points.last != point { points.append(point) }
        }
        return points
    }

    /// Every `names.count / shards`-th name of `names` (sorted), without repeats: at most `shards - 1`.
    package static func evenlySpaced(_ names: [String], shards: Int) -> [String] {
        guard shards > 1, !names.isEmpty else { return [] }
        var points: [String] = []
        for index in 1..<shards {
            let position = index * names.count / shards
            guard position > 0, position < names.count else { continue }
            if points.last != names[position] { points.append(names[position]) }
        }
        return points
    }
}
