import FirestoreFeed

/// Checks a ``SnapshotArrayDiff`` from the outside, as a UIKit batch update would consume it: the validity
/// rules on its index lists, and the list obtained by applying it to `initial` using only those lists.
enum DiffChecks {
    /// Every rule the diff breaks, as readable lines; empty when it is valid and applying it to `initial` yields
    /// `result` (compared with `same`).
    static func problems<Element>(
        _ diff: SnapshotArrayDiff<Element>, same: (Element, Element) -> Bool
    ) -> [String] {
        var problems: [String] = []
        let initialRange = 0..<diff.initial.count
        let resultRange = 0..<diff.result.count
        let lists: [(String, [Int], Range<Int>)] = [
            ("deletedIndexes", diff.deletedIndexes, initialRange),
            ("insertedIndexes", diff.insertedIndexes, resultRange),
            ("movedInitialIndexes", diff.movedInitialIndexes, initialRange),
            ("movedResultIndexes", diff.movedResultIndexes, resultRange),
            ("changedIndexes", diff.changedIndexes, initialRange),
            ("changedResultIndexes", diff.changedResultIndexes, resultRange),
        ]
        for (name, list, range) in lists {
            if let outside = list.first(where: { !range.contains($0) }) {
                problems.append("\(name) holds \(outside), outside \(range)")
            }
            if Set(list).count != list.count { problems.append("\(name) repeats an index: \(list)") }
        }
        if diff.movedInitialIndexes.count != diff.movedResultIndexes.count {
            problems.append("moved lists are not parallel")
        }
        if diff.changedIndexes.count != diff.changedResultIndexes.count {
            problems.append("changed lists are not parallel")
        }
        if !Set(diff.deletedIndexes).isDisjoint(with: diff.movedInitialIndexes) {
            problems.append("an initial index is both deleted and moved from")
        }
        if !Set(diff.insertedIndexes).isDisjoint(with: diff.movedResultIndexes) {
            problems.append("a result index is both inserted and moved to")
        }
        if !Set(diff.deletedIndexes).isDisjoint(with: diff.changedIndexes) {
            problems.append("an initial index is both deleted and changed")
        }
        if !Set(diff.insertedIndexes).isDisjoint(with: diff.changedResultIndexes) {
            problems.append("a result index is both inserted and changed")
        }
        let moves = diff.movedInitialIndexes.count
        if diff.initial.count - diff.deletedIndexes.count - moves != diff.result.count - diff.insertedIndexes.count
            - moves
        {
            problems.append(
                "counts: \(diff.initial.count) - \(diff.deletedIndexes.count) deleted + "
                    + "\(diff.insertedIndexes.count) inserted != \(diff.result.count)")
        }
        guard problems.isEmpty else { return problems }

        // Apply: deletions and moves-from leave; insertions and moves-to take their result positions; the rest
        // fill the remaining positions in order; then changed elements take their new content.
        let leaving = Set(diff.deletedIndexes).union(diff.movedInitialIndexes)
        let staying = initialRange.filter { !leaving.contains($0) }
        var origin = [Int?](repeating: nil, count: diff.result.count)  // initial position, nil for inserted
        var applied = [Element?](repeating: nil, count: diff.result.count)
        for position in diff.insertedIndexes { applied[position] = diff.result[position] }
        for (from, to) in zip(diff.movedInitialIndexes, diff.movedResultIndexes) {
            applied[to] = diff.initial[from]
            origin[to] = from
        }
        var next = staying.makeIterator()
        for position in resultRange where applied[position] == nil {
            guard let from = next.next() else {
                problems.append("no staying element left for result position \(position)")
                return problems
            }
            applied[position] = diff.initial[from]
            origin[position] = from
        }
        for (from, to) in zip(diff.changedIndexes, diff.changedResultIndexes) {
            if origin[to] != from {
                problems.append(
                    "changed \(from)->\(to): result position \(to) holds initial \(String(describing: origin[to]))")
            }
            applied[to] = diff.result[to]
        }
        for position in resultRange {
            guard let element = applied[position], same(element, diff.result[position]) else {
                problems.append("applying the diff gives a different element at \(position)")
                break
            }
        }
        return problems
    }
}

/// A list element for diff tests: identity `id`, content `version`.
struct Item: Identifiable, Hashable, CustomStringConvertible {
    let id: String
    let version: Int
    init(_ id: String, _ version: Int = 0) { (self.id, self.version) = (id, version) }
    var description: String { version == 0 ? id : "\(id)v\(version)" }
}
