import FirestoreREST

/// One computed change between two query results, on plain ``Document`` values.
public struct ComputedChange: Sendable, Hashable {
    /// What happened.
    public let type: DocumentChangeType
    /// The new version (for `.removed`, the last known version).
    public let document: Document
    /// Position in the working list before the change, `nil` for `.added`.
    public let oldIndex: Int?
    /// Position in the working list after the change, `nil` for `.removed`.
    public let newIndex: Int?

    public init(type: DocumentChangeType, document: Document, oldIndex: Int?, newIndex: Int?) {
        self.type = type
        self.document = document
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }
}

/// Computes the `DocumentChange` list between two consecutive results of one query, with the rules the
/// conformance `listen-*.json` tests prove (`firestore-rest.md` §3.3):
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
public enum DocumentChangeComputation {
    /// The changes that turn `old` into `new`.
    ///
    /// - Parameters:
    ///   - old: the previous result, in query order.
    ///   - new: the current result, in query order.
    ///   - ordering: the query's ordering, used to place additions and modifications.
    /// - Returns: the changes in emission order (removals, additions, modifications).
    /// - Complexity: O((n + m) log n) comparisons to find positions, plus O(n) element moves per change in
    ///   the working array.
    public static func changes(from old: [Document], to new: [Document], ordering: DocumentOrdering)
        -> [ComputedChange]
    {
        var oldByName: [ByteExactName: Document] = [:]
        oldByName.reserveCapacity(old.count)
        var working: [Document] = []
        working.reserveCapacity(max(old.count, new.count))
        for document in old where oldByName[ByteExactName(name: document.name)] == nil {
            oldByName[ByteExactName(name: document.name)] = document
            working.append(document)
        }
        var newNames: Set<ByteExactName> = []
        newNames.reserveCapacity(new.count)
        var added: [Document] = []
        var modified: [Document] = []
        for document in new where newNames.insert(ByteExactName(name: document.name)).inserted {
            if let previous = oldByName[ByteExactName(name: document.name)] {
                if previous.updateTime != document.updateTime { modified.append(document) }
            } else {
                added.append(document)
            }
        }
        var changes: [ComputedChange] = []
        changes.reserveCapacity(added.count + modified.count + max(0, working.count - newNames.count))

        // Removals, in old order: the working list is the old list minus the removals so far.
        var kept: [Document] = []
        kept.reserveCapacity(working.count)
        for document in working {
            if newNames.contains(ByteExactName(name: document.name)) {
                kept.append(document)
            } else {
                changes.append(ComputedChange(type: .removed, document: document, oldIndex: kept.count, newIndex: nil))
            }
        }
        working = kept

        for document in added {
            let position = insertionIndex(of: document, in: working, ordering: ordering)
            working.insert(document, at: position)
            changes.append(ComputedChange(type: .added, document: document, oldIndex: nil, newIndex: position))
        }

        for document in modified {
            guard let previous = oldByName[ByteExactName(name: document.name)],
                let oldPosition = index(of: previous, in: working, ordering: ordering)
            else { continue }
            working.remove(at: oldPosition)
            let position = insertionIndex(of: document, in: working, ordering: ordering)
            working.insert(document, at: position)
            changes.append(ComputedChange(type: .modified, document: document, oldIndex: oldPosition, newIndex: position))
        }
        return changes
    }

    /// The first position whose document sorts after `document` (binary search; the working list is in
    /// query order).
    static func insertionIndex(of document: Document, in list: [Document], ordering: DocumentOrdering) -> Int {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if ordering.compare(list[middle], document) <= 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The position of `document` (by name) in `list`: binary search by the ordering, checked by name, with
    /// a linear scan as the fallback when the server's order and the ordering disagree.
    static func index(of document: Document, in list: [Document], ordering: DocumentOrdering) -> Int? {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if ordering.compare(list[middle], document) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        let key = ByteExactName(name: document.name)
        if low < list.count, ByteExactName(name: list[low].name) == key { return low }
        return list.firstIndex { ByteExactName(name: $0.name) == key }
    }
}
