import FirestoreREST

/// Computes the `DocumentChange` list between two consecutive results of one query, with the rules the
/// conformance `listen-*.json` tests prove (`Tests/ConformanceTests/Resources/conformance`,
/// run by `ListenConformanceTests`):
///
/// 1. a document is *modified* only when its `updateTime` changed (data alone does not count:
///    `listen-nomod`);
/// 2. removals first, in the old result's order; `oldIndex` is the position in the working list at that
///    moment (two consecutive removals at the front both have `oldIndex` 0: `listen-multi-docs`);
/// 3. then additions, in the new result's order, each inserted into the working list where the query's
///    ordering puts it; `newIndex` is that position;
/// 4. then modifications, in the new result's order: `oldIndex` is the position of the old version in the
///    working list, which is removed; the new version is inserted where the ordering puts it (`newIndex`).
///
/// Documents are identified by their full resource name, compared byte for byte (``ByteExactName``).
/// Duplicated names in one input are counted once (the first occurrence wins) so a misbehaving server cannot
/// make the working list diverge.
package enum DocumentChangeComputation {
    /// The changes that turn `old` into `new`.
    ///
    /// - Parameters:
    ///   - old: the previous result, in query order.
    ///   - new: the current result, in query order.
    ///   - ordering: the query's ordering, used to place additions and modifications.
    /// - Returns: the changes in emission order (removals, additions, modifications).
    /// - Complexity: O(n + c log n) for n documents and c changes in the usual case: one hash lookup per
    ///   document (none for a document right after the previous one's old position: ``IdentitySlots``),
    ///   additions in query order placed by binary search and merged in one pass, a modification
    ///   that keeps its place replaced in place. The working list holds integer references, not documents. A
    ///   modification that moves costs O(n) integer moves; additions out of the ordering's order (a server that
    ///   sorts differently) fall back to one insertion each.
    package static func changes(from old: [Document], to new: [Document], ordering: DocumentOrdering)
        -> [ComputedChange]
    {
        // A reference r >= 0 is old[r]; r < 0 is new[-r - 1].
        func document(_ reference: Int) -> Document { reference >= 0 ? old[reference] : new[-reference - 1] }
        func compare(_ a: Int, _ b: Int) -> Int { ordering.compare(document(a), document(b)) }

        // Each distinct old name's slot (its first occurrence wins); `working[slot]` is that occurrence's index, so
        // the working list starts as the old list without its duplicates.
        var slots = IdentitySlots<ByteExactName>(capacity: old.count)
        var working: [Int] = []
        working.reserveCapacity(max(old.count, new.count))
        for (index, document) in old.enumerated() where slots.claim(ByteExactName(name: document.name)) == working.count
        {
            working.append(index)
        }

        var inNew = [Bool](repeating: false, count: old.count)
        var added: [Int] = []
        var addedNames: Set<ByteExactName> = []
        var modified: [(new: Int, old: Int)] = []
        // Consecutive results mostly keep their order: the slot after the last one found is tried first, one name
        // comparison instead of a hash.
        var guess = 0
        for (index, document) in new.enumerated() {
            let key = ByteExactName(name: document.name)
            let slot = slots.slot(of: key, guess: guess)
            if slot >= 0 {
                guess = slot + 1
                let oldIndex = working[slot]
                guard !inNew[oldIndex] else { continue }
                inNew[oldIndex] = true
                if old[oldIndex].updateTime != document.updateTime { modified.append((index, oldIndex)) }
            } else if addedNames.insert(key).inserted {
                added.append(-index - 1)
            }
        }
        var changes: [ComputedChange] = []
        changes.reserveCapacity(added.count + modified.count + working.count - modified.count)

        // Removals, in old order: the working list is the old list minus the removals so far.
        var kept: [Int] = []
        kept.reserveCapacity(working.count)
        for reference in working {
            if inNew[reference] {
                kept.append(reference)
            } else {
                changes.append(
                    ComputedChange(type: .removed, document: old[reference], oldIndex: kept.count, newIndex: nil))
            }
        }
        working = kept

        insertAdditions(added, into: &working, changes: &changes, document: document, compare: compare)

        for (newIndex, oldIndex) in modified {
            guard let position = self.position(of: oldIndex, in: working, compare: compare) else { continue }
            let reference = -newIndex - 1
            // Still between its neighbours: the remove-and-insert would put it back here.
            let fitsBefore = position == 0 || compare(working[position - 1], reference) <= 0
            let fitsAfter = position + 1 == working.count || compare(working[position + 1], reference) > 0
            if fitsBefore && fitsAfter {
                working[position] = reference
                changes.append(
                    ComputedChange(
                        type: .modified, document: new[newIndex], oldIndex: position,
                        newIndex: position))
                continue
            }
            working.remove(at: position)
            let target = insertionIndex(of: reference, in: working, compare: compare)
            working.insert(reference, at: target)
            changes.append(
                ComputedChange(type: .modified, document: new[newIndex], oldIndex: position, newIndex: target))
        }
        return changes
    }

    /// Inserts the additions one after another, as the rules say, recording each position. When the
    /// additions are in the ordering's order (the usual case: the server sorts by the same orders), the k-th
    /// addition lands at its binary-search position among the pre-existing documents plus k, so every position
    /// is found on the unchanged list and the list is merged once.
    static func insertAdditions(
        _ added: [Int], into working: inout [Int], changes: inout [ComputedChange], document: (Int) -> Document,
        compare: (Int, Int) -> Int
    ) {
        let sorted = zip(added, added.dropFirst()).allSatisfy { compare($0, $1) < 0 }
        guard sorted, added.count > 1 else {
            for reference in added {
                let position = insertionIndex(of: reference, in: working, compare: compare)
                working.insert(reference, at: position)
                changes.append(
                    ComputedChange(type: .added, document: document(reference), oldIndex: nil, newIndex: position))
            }
            return
        }
        var bases: [Int] = []
        bases.reserveCapacity(added.count)
        for (k, reference) in added.enumerated() {
            let base = insertionIndex(of: reference, in: working, compare: compare)
            bases.append(base)
            changes.append(
                ComputedChange(type: .added, document: document(reference), oldIndex: nil, newIndex: base + k))
        }
        var merged: [Int] = []
        merged.reserveCapacity(working.count + added.count)
        var next = 0
        for (k, reference) in added.enumerated() {
            merged.append(contentsOf: working[next..<bases[k]])
            merged.append(reference)
            next = bases[k]
        }
        merged.append(contentsOf: working[next...])
        working = merged
    }

    /// The first position whose document sorts after `reference`'s (binary search; the working list is in
    /// query order).
    static func insertionIndex(of reference: Int, in list: [Int], compare: (Int, Int) -> Int) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if compare(list[middle], reference) <= 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The position of `reference` in `list`: binary search by the ordering, checked by identity, with a
    /// linear scan as the fallback when the server's order and the ordering disagree.
    static func position(of reference: Int, in list: [Int], compare: (Int, Int) -> Int) -> Int? {
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if compare(list[middle], reference) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        if low < list.count, list[low] == reference { return low }
        return list.firstIndex(of: reference)
    }
}
