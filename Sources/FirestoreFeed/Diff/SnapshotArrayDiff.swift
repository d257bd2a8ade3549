/// The difference between two ordered lists whose elements have an identity and a content, as one batch of
/// deletions, insertions, moves and content changes: FirebaseUI's `FUISnapshotArrayDiff`, computed in
/// O(n log n) at worst instead of with an O(n·m) longest common subsequence (FirebaseUI-iOS's
/// `FUISnapshotArrayDiff`; `SnapshotArrayDiffFieldCaseTests.a3...`, `a4...`).
///
/// ## What it reports
/// An element of `initial` and one of `result` are *the same element* when their identities are equal (for
/// documents: the full resource name, byte for byte); it is *changed* when its content differs (for
/// documents: `updateTime` or fields). Index spaces are the ones UIKit batch updates use:
///
/// | property | positions in | meaning |
/// |---|---|---|
/// | ``deletedIndexes`` | `initial` | elements with no counterpart in `result`, ascending |
/// | ``insertedIndexes`` | `result` | elements with no counterpart in `initial`, ascending |
/// | ``movedInitialIndexes`` / ``movedResultIndexes`` | `initial` / `result` | parallel: element moved from / to,
/// ascending by result position |
/// | ``changedIndexes`` | `initial` | every retained element whose content changed, moved or not, ascending |
/// | ``changedResultIndexes`` | `result` | parallel to ``changedIndexes``: where each changed element ends up |
///
/// A document that both moved and changed is in the moves *and* in the changes
/// (`SnapshotArrayDiffFieldCaseTests.a2MovedAndChangedIsReportedAsBoth`).
///
/// ## Guarantees
/// - **Minimal moves.** The retained elements that keep their relative order form a longest increasing
///   subsequence of their initial positions read in result order; they do not move, every other retained
///   element is a move. Rotating `[0,1,2,3,4,5]` to `[5,0,1,2,3,4]` is exactly one move
///   (`SnapshotArrayDiffFieldCaseTests.a4RotationIsOneMove`).
///   When several choices are equally small, the element now further to the front is the one reported as moved
///   (`[b,a] → [a,b]` moves `a`, as FirebaseUI's LCS does).
/// - **Valid as a batch update.** No index appears twice within a category; no initial index is both deleted
///   and moved from; no result index is both inserted and moved to;
///   `initial.count - deleted - moved == result.count - inserted - moved`.
/// - **Applying it gives the result.** Remove the deleted and moved-from elements from `initial`; place the
///   inserted elements (`result[i]`) and the moved elements (`initial[from]`) at their result positions, the
///   remaining elements filling the other positions in their order; then replace each changed element by its
///   new content (`result[changedResultIndexes[k]]`). The list obtained equals `result`, element for element.
/// - **Repeated identities** (not produced by Firestore, whose names are unique, but possible in any input; the
///   FirebaseUI case `[a,a,a,a]`) never trap: the k-th occurrence of an identity in `initial` is the same
///   element as its k-th occurrence in `result`; extra occurrences are deleted or inserted. `[a,a,a,a]` to
///   itself is an empty diff; `[a,b,a] → [b,a]` pairs the first `a`s and deletes the last, so it reports one
///   move. With repeats, the moves are minimal for that pairing.
///
/// ## Applying a diff to a table view
/// ```swift
/// tableView.performBatchUpdates {
///     tableView.deleteRows(at: diff.deletedIndexes.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///     tableView.insertRows(at: diff.insertedIndexes.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///     for (from, to) in zip(diff.movedInitialIndexes, diff.movedResultIndexes) {
///         tableView.moveRow(at: IndexPath(row: from, section: 0), to: IndexPath(row: to, section: 0))
///     }
/// }
/// // A row cannot be moved and reloaded in one batch, and a move does not refresh the cell: reload the
/// // changed rows (moved or not) after the batch, at their result positions.
/// tableView.reloadRows(at: diff.changedResultIndexes.map { IndexPath(row: $0, section: 0) }, with: .none)
/// ```
/// The data source must already answer with `result` when the batch runs (``BatchedArray`` swaps its items
/// before `didUpdate`).
///
/// - Complexity: building a diff takes O(n + m) hash-map operations plus O(k log k) for the longest increasing
///   subsequence of the k retained elements (O(k) when they are mostly in order), O(n + m) memory, and one
///   content comparison per retained element. No recursion.
public struct SnapshotArrayDiff<Element> {
    /// The list before the update.
    public let initial: [Element]
    /// The list after the update.
    public let result: [Element]
    /// Positions in ``initial`` of the elements that are gone, ascending.
    public let deletedIndexes: [Int]
    /// Positions in ``result`` of the new elements, ascending.
    public let insertedIndexes: [Int]
    /// Positions in ``initial`` of the moved elements, parallel to ``movedResultIndexes``.
    public let movedInitialIndexes: [Int]
    /// Positions in ``result`` of the moved elements, ascending, parallel to ``movedInitialIndexes``.
    public let movedResultIndexes: [Int]
    /// Positions in ``initial`` of the retained elements whose content changed (moved or not), ascending.
    public let changedIndexes: [Int]
    /// Positions in ``result`` of the changed elements, parallel to ``changedIndexes``.
    public let changedResultIndexes: [Int]

    /// The diff from `initial` to `result`, with identity and content given as functions.
    ///
    /// - Parameters:
    ///   - initial: the list before.
    ///   - result: the list after.
    ///   - identity: what makes two elements the same element (called once per element).
    ///   - contentEquals: whether two elements of the same identity have the same content (called once per
    ///     retained element, with the initial element first).
    /// - Complexity: O(n + m) hash-map operations plus O(k log k) for k retained elements; see the type.
    ///   (Inlinable so that it is specialised for the caller's element and identity types.)
    @inlinable
    public init<Identity: Hashable>(
        initial: [Element], result: [Element], identity: (Element) -> Identity,
        contentEquals: (Element, Element) -> Bool
    ) {
        self.initial = initial
        self.result = result

        // Identities become small integers (slots) so that the rest works on plain arrays.
        var slots = IdentitySlots<Identity>(capacity: initial.count)
        var initialSlots: [Int] = []
        initialSlots.reserveCapacity(initial.count)
        for position in initial.indices {
            initialSlots.append(slots.claim(identity(initial[position])))
        }
        // A result element is most often the one after the previous result element's counterpart (the lists
        // mostly keep their order): that slot is tried first, one comparison instead of a hash.
        var resultSlots: [Int] = []
        resultSlots.reserveCapacity(result.count)
        var expected = 0
        for position in result.indices {
            let slot = slots.slot(of: identity(result[position]), guess: expected)
            resultSlots.append(slot)
            if slot >= 0 { expected = slot + 1 }
        }
        let pairing = IdentityPairing(initialSlots: initialSlots, resultSlots: resultSlots, slotCount: slots.count)

        var deleted: [Int] = []
        var changed: [Int] = []
        var changedResult: [Int] = []
        for (initialPosition, resultPosition) in pairing.resultPositionOfInitial.enumerated() {
            if resultPosition < 0 {
                deleted.append(initialPosition)
            } else if !contentEquals(initial[initialPosition], result[resultPosition]) {
                changed.append(initialPosition)
                changedResult.append(resultPosition)
            }
        }

        // Retained elements in result order, by initial position; the longest increasing run of them stays.
        var inserted: [Int] = []
        var retainedResultPositions: [Int] = []
        var retainedInitialPositions: [Int] = []
        retainedResultPositions.reserveCapacity(result.count)
        retainedInitialPositions.reserveCapacity(result.count)
        for (resultPosition, initialPosition) in pairing.initialPositionOfResult.enumerated() {
            if initialPosition < 0 {
                inserted.append(resultPosition)
            } else {
                retainedResultPositions.append(resultPosition)
                retainedInitialPositions.append(initialPosition)
            }
        }
        let staying = LongestIncreasingSubsequence.positions(in: retainedInitialPositions)
        var movedInitial: [Int] = []
        var movedResult: [Int] = []
        let moveCount = retainedInitialPositions.count - staying.count
        movedInitial.reserveCapacity(moveCount)
        movedResult.reserveCapacity(moveCount)
        var nextStaying = 0
        for k in retainedInitialPositions.indices {
            if nextStaying < staying.count, staying[nextStaying] == k {
                nextStaying += 1
            } else {
                movedInitial.append(retainedInitialPositions[k])
                movedResult.append(retainedResultPositions[k])
            }
        }

        self.deletedIndexes = deleted
        self.insertedIndexes = inserted
        self.movedInitialIndexes = movedInitial
        self.movedResultIndexes = movedResult
        self.changedIndexes = changed
        self.changedResultIndexes = changedResult
    }

    /// Whether nothing was deleted, inserted, moved or changed.
    public var isEmpty: Bool {
        deletedIndexes.isEmpty && insertedIndexes.isEmpty && movedInitialIndexes.isEmpty && changedIndexes.isEmpty
    }

    /// The deleted elements (from ``initial``), parallel to ``deletedIndexes``.
    public var deletedObjects: [Element] { deletedIndexes.map { initial[$0] } }
    /// The inserted elements (from ``result``), parallel to ``insertedIndexes``.
    public var insertedObjects: [Element] { insertedIndexes.map { result[$0] } }
    /// The moved elements in their new state (from ``result``), parallel to ``movedResultIndexes``.
    public var movedObjects: [Element] { movedResultIndexes.map { result[$0] } }
    /// The changed elements in their new state (from ``result``), parallel to ``changedIndexes``.
    public var changedObjects: [Element] { changedResultIndexes.map { result[$0] } }
}

extension SnapshotArrayDiff: Sendable where Element: Sendable {}

extension SnapshotArrayDiff: CustomStringConvertible {
    /// The index lists, in FirebaseUI's order: `Deleted [..] Moved [from->to, ..] Changed [..] Inserted [..]`.
    public var description: String {
        let moves = zip(movedInitialIndexes, movedResultIndexes).map { "\($0)->\($1)" }
        return "SnapshotArrayDiff(Deleted \(deletedIndexes) Moved [\(moves.joined(separator: ", "))] "
            + "Changed \(changedIndexes) Inserted \(insertedIndexes))"
    }
}
