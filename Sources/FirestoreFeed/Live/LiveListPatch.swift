import FirestoreREST

/// The `patch` event's data: FirebaseUI's `FUISnapshotArrayDiff` (``SnapshotArrayDiff``) with the documents a client
/// needs, as JSON:
///
/// ```json
/// {"readTime": "…", "count": 3,
///  "deleted": [4, 1],
///  "moved": [{"from": 0, "to": 2}],
///  "inserted": [{"index": 0, "document": {…}}],
///  "changed": [{"index": 2, "document": {…}}]}
/// ```
///
/// A client applies it to its list (the list of the event before) in this order, which ``apply(_:to:)`` follows:
/// 1. take out the elements at `deleted` and at each move's `from` (positions in the old list);
/// 2. make a list of `count` slots: each `inserted` document at its `index`, each moved element at its `to`, and the
///    elements left from step 1, in their order, in the slots still empty;
/// 3. replace the element at each `changed` `index` (a position in the new list) by its `document`.
///
/// Documents are REST `Document` JSON (`name`, typed `fields`, `createTime`, `updateTime`). Deleted indexes are in
/// descending order (remove them one by one in that order, and no index shifts under another).
public enum LiveListPatch {
    /// The patch from `diff` (documents identified by their full names).
    static func json(_ diff: SnapshotArrayDiff<Document>, readTime: Timestamp?) -> JSONValue {
        [
            "readTime": readTime.map { .string($0.rfc3339) } ?? .null,
            "count": .integer(Int64(diff.result.count)),
            "deleted": .array(diff.deletedIndexes.reversed().map { .integer(Int64($0)) }),
            "moved": .array(
                zip(diff.movedInitialIndexes, diff.movedResultIndexes).map { from, to in
                    ["from": .integer(Int64(from)), "to": .integer(Int64(to))]
                }),
            "inserted": .array(
                diff.insertedIndexes.map { index in
                    ["index": .integer(Int64(index)), "document": diff.result[index].restJSON()]
                }),
            "changed": .array(
                diff.changedResultIndexes.map { index in
                    ["index": .integer(Int64(index)), "document": diff.result[index].restJSON()]
                }),
        ]
    }

    /// `list` (a client's list: each element the JSON of one document) after the patch `patch` (the `patch` event's
    /// parsed data), by the three steps above: what a Swift client of the stream does, and the rule the stream's
    /// tests check.
    /// - Throws: `FirestoreError` `.invalidArgument` naming what does not fit (an index outside the list, a slot
    ///   filled twice or left empty, a member missing): the patch is not for this list.
    /// - Complexity: O(n + k log k) for a list of n and a patch of k entries.
    public static func apply(_ patch: JSONValue, to list: [JSONValue]) throws(FirestoreError) -> [JSONValue] {
        func integer(_ value: JSONValue?, _ what: String) throws(FirestoreError) -> Int {
            guard case .integer(let number)? = value, let index = Int(exactly: number), index >= 0 else {
                throw .invalidArgument("patch: \(what) is not an index")
            }
            return index
        }
        func entries(_ key: String) throws(FirestoreError) -> [JSONValue] {
            guard let array = patch[key]?.arrayValue else { throw .invalidArgument("patch: no \"\(key)\" array") }
            return array
        }
        let count = try integer(patch["count"], "count")
        var takenOut = Set<Int>()
        for entry in try entries("deleted") { takenOut.insert(try integer(entry, "a deleted index")) }
        var slots = [JSONValue?](repeating: nil, count: count)
        var filled = [Bool](repeating: false, count: count)
        func fill(_ index: Int, _ value: JSONValue) throws(FirestoreError) {
            guard index < count, !filled[index] else {
                throw .invalidArgument("patch: slot \(index) of \(count) is outside the list or filled twice")
            }
            slots[index] = value
            filled[index] = true
        }
        for move in try entries("moved") {
            let from = try integer(move["from"], "a move's from")
            guard from < list.count else { throw .invalidArgument("patch: move from \(from) of \(list.count)") }
            takenOut.insert(from)
            try fill(try integer(move["to"], "a move's to"), list[from])
        }
        for insertion in try entries("inserted") {
            guard let document = insertion["document"] else {
                throw .invalidArgument("patch: an insert has no document")
            }
            try fill(try integer(insertion["index"], "an insert's index"), document)
        }
        guard takenOut.allSatisfy({ $0 < list.count }) else {
            throw .invalidArgument("patch: a deleted index is outside the list of \(list.count)")
        }
        var remaining = list.indices.lazy.filter { !takenOut.contains($0) }.makeIterator()
        for slot in 0..<count where !filled[slot] {
            guard let next = remaining.next() else {
                throw .invalidArgument("patch: slot \(slot) of \(count) is left empty")
            }
            slots[slot] = list[next]
            filled[slot] = true
        }
        guard remaining.next() == nil else { throw .invalidArgument("patch: the old list has elements left over") }
        for change in try entries("changed") {
            let index = try integer(change["index"], "a change's index")
            guard index < count, let document = change["document"] else {
                throw .invalidArgument("patch: change at \(index) of \(count) has no document or is outside")
            }
            slots[index] = document
        }
        return slots.map { $0 ?? .null }
    }
}
