import FirestoreREST

/// The change list between two results placed by the new result's own order instead of the query's ordering:
/// what the feed publishes when ``DocumentChangeReplay`` finds that the ordering's changes do not rebuild the
/// server's list (a value type the ordering does not know, as vectors once were: issue 19).
///
/// The change types and their order follow ``DocumentChangeComputation`` (a document is modified only when its
/// `updateTime` moved; removals first in old order, then additions, then modifications, each in new order), but a
/// document is placed right after the nearest document before it in the new result that is already in place, so
/// the working list ends as the new result. Documents that did not change keep their relative order in the
/// server's result (equal values sort the same way every time); if the server moved one anyway, it is reported
/// as modified at its new place (with the same version), so that the list still ends right.
package enum ServerOrderChanges {
    /// The changes that turn `old` into `new`, placed by `new`'s order.
    ///
    /// - Complexity: O(n log n) for n documents (the order of the unchanged ones is checked with a longest
    ///   increasing subsequence), plus O(n) for each modification. Only used when the query's ordering
    ///   disagrees with the server.
    package static func changes(from old: [Document], to new: [Document]) -> [ComputedChange] {
        let old = unique(old)
        let new = unique(new)
        var rank: [ByteExactName: Int] = [:]
        rank.reserveCapacity(new.count)
        for (position, document) in new.enumerated() { rank[ByteExactName(name: document.name)] = position }

        // A working-list entry: the document's rank in `new`, and whether it is in place.
        struct Entry {
            let rank: Int
            var settled: Bool
        }
        var changes: [ComputedChange] = []
        var working: [Entry] = []
        working.reserveCapacity(max(old.count, new.count))
        var keptOld: [Int: Document] = [:]  // rank -> old version, for the documents still there
        for document in old {
            guard let position = rank[ByteExactName(name: document.name)] else {
                changes.append(
                    ComputedChange(type: .removed, document: document, oldIndex: working.count, newIndex: nil))
                continue
            }
            working.append(Entry(rank: position, settled: false))
            keptOld[position] = document
        }

        // Unchanged documents stay where they are, as long as they keep their relative order.
        let unchanged = working.indices.filter { index in
            keptOld[working[index].rank]?.updateTime == new[working[index].rank].updateTime
        }
        for member in LongestIncreasingSubsequence.positions(in: unchanged.map { working[$0].rank }) {
            working[unchanged[member]].settled = true
        }

        // Additions, in new order, merged in one pass: each goes right after the last settled entry of lower rank.
        let added = new.indices.filter { keptOld[$0] == nil }
        if !added.isEmpty {
            var merged: [Entry] = []
            merged.reserveCapacity(working.count + added.count)
            var next = 0
            func emit(below limit: Int) {
                while next < added.count, added[next] < limit {
                    changes.append(
                        ComputedChange(
                            type: .added, document: new[added[next]], oldIndex: nil, newIndex: merged.count))
                    merged.append(Entry(rank: added[next], settled: true))
                    next += 1
                }
            }
            // The rank of the next settled entry at or after each position.
            var nextSettled = [Int](repeating: Int.max, count: working.count + 1)
            for position in working.indices.reversed() {
                nextSettled[position] = working[position].settled ? working[position].rank : nextSettled[position + 1]
            }
            emit(below: nextSettled[0])
            for (position, entry) in working.enumerated() {
                merged.append(entry)
                if entry.settled { emit(below: nextSettled[position + 1]) }
            }
            working = merged
        }

        // Modifications (and documents the server moved), in new order.
        for position in new.indices {
            guard keptOld[position] != nil, let from = working.firstIndex(where: { $0.rank == position }),
                !working[from].settled
            else { continue }
            working.remove(at: from)
            var to = 0
            for (index, entry) in working.enumerated() where entry.settled && entry.rank < position { to = index + 1 }
            working.insert(Entry(rank: position, settled: true), at: to)
            changes.append(ComputedChange(type: .modified, document: new[position], oldIndex: from, newIndex: to))
        }
        return changes
    }

    /// `documents` with repeated names dropped, the first occurrence kept.
    static func unique(_ documents: [Document]) -> [Document] {
        var seen: Set<ByteExactName> = []
        seen.reserveCapacity(documents.count)
        return documents.filter { seen.insert(ByteExactName(name: $0.name)).inserted }
    }
}
