import FirestoreREST

/// Applies a change list to the previous result, as a list UI does (remove at `oldIndex`, insert at
/// `newIndex`, a modification both), and says whether it rebuilds the new result: the safety net that catches
/// a query ordering that disagrees with the server's (issue 19: vectors once sorted among maps).
///
/// Documents are compared by name, byte for byte (``ByteExactName``); versions are not compared (the change
/// computation's own rules decide what is modified).
package enum DocumentChangeReplay {
    /// Whether applying `changes` to the names of `old`, one change after another, gives the names of `new` in
    /// order. A change whose index is missing or out of range, or whose `oldIndex` does not hold that document,
    /// fails the replay. Repeated names are counted once, the first occurrence (as the computation counts them).
    ///
    /// - Complexity: O(n) name comparisons (no hashing) for n documents when the changes are in the computation's
    ///   form (removals with non-decreasing `oldIndex`, then additions with increasing `newIndex`, each run applied
    ///   in one pass), plus O(n) moves for each modification that changes position and for each change out of that
    ///   form. Only when that fails are repeated names looked for (one hash per name) and the replay run again.
    package static func rebuilds(_ changes: [ComputedChange], from old: [Document], to new: [Document]) -> Bool {
        if replay(changes, on: old.map(\.name), gives: new.map(\.name)) { return true }
        let (uniqueOld, uniqueNew) = (unique(old), unique(new))
        guard uniqueOld.count != old.count || uniqueNew.count != new.count else { return false }
        return replay(changes, on: uniqueOld, gives: uniqueNew)
    }

    /// The replay on lists of names.
    static func replay(_ changes: [ComputedChange], on old: [String], gives new: [String]) -> Bool {
        var working = old
        var index = changes.startIndex
        while index < changes.endIndex {
            let change = changes[index]
            switch change.type {
            case .removed:
                // A run of removals with non-decreasing oldIndex: the k-th one removes original position oldIndex + k.
                var end = index + 1
                while end < changes.endIndex, changes[end].type == .removed,
                    let previous = changes[end - 1].oldIndex, let next = changes[end].oldIndex, next >= previous
                {
                    end += 1
                }
                guard removeRun(changes[index..<end], from: &working) else { return false }
                index = end
            case .added:
                // A run of additions with increasing newIndex: each lands at its final position.
                var end = index + 1
                while end < changes.endIndex, changes[end].type == .added,
                    let previous = changes[end - 1].newIndex, let next = changes[end].newIndex, next > previous
                {
                    end += 1
                }
                guard insertRun(changes[index..<end], into: &working) else { return false }
                index = end
            case .modified:
                guard let from = change.oldIndex, let to = change.newIndex, working.indices.contains(from),
                    working[from].utf8Equals(change.document.name)
                else { return false }
                if from != to {
                    let name = working.remove(at: from)
                    guard to >= 0, to <= working.count else { return false }
                    working.insert(name, at: to)
                }
                index += 1
            }
        }
        return working.utf8Equals(new)
    }

    /// The names of `documents`, each once (the first occurrence).
    static func unique(_ documents: [Document]) -> [String] {
        var seen: Set<ByteExactName> = []
        seen.reserveCapacity(documents.count)
        return documents.map(\.name).filter { seen.insert(ByteExactName(name: $0)).inserted }
    }

    /// Removes a run of removals whose `oldIndex`es do not decrease, in one pass.
    private static func removeRun(_ run: ArraySlice<ComputedChange>, from working: inout [String]) -> Bool {
        var removed = [Bool](repeating: false, count: working.count)
        for (k, change) in run.enumerated() {
            guard let oldIndex = change.oldIndex else { return false }
            let position = oldIndex + k
            guard position >= 0, position < working.count, !removed[position],
                working[position].utf8Equals(change.document.name)
            else { return false }
            removed[position] = true
        }
        var kept: [String] = []
        kept.reserveCapacity(working.count - run.count)
        for (position, name) in working.enumerated() where !removed[position] { kept.append(name) }
        working = kept
        return true
    }

    /// Inserts a run of additions whose `newIndex`es increase, in one pass: inserting one after another at
    /// increasing indexes never moves an earlier one, so each `newIndex` is its final position.
    private static func insertRun(_ run: ArraySlice<ComputedChange>, into working: inout [String]) -> Bool {
        let total = working.count + run.count
        guard let last = run.last?.newIndex, last < total, let first = run.first?.newIndex, first >= 0 else {
            return false
        }
        var merged: [String] = []
        merged.reserveCapacity(total)
        var next = run.startIndex
        var kept = 0
        for position in 0..<total {
            if next < run.endIndex, run[next].newIndex == position {
                merged.append(run[next].document.name)
                next += 1
            } else {
                guard kept < working.count else { return false }
                merged.append(working[kept])
                kept += 1
            }
        }
        // Strictly increasing indexes below `total`: every addition found its position.
        working = merged
        return next == run.endIndex
    }
}
