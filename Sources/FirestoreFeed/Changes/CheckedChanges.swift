import FirestoreREST

/// A change list that passed the safety net: the changes the query's ordering gives when they rebuild the new
/// result (``DocumentChangeReplay``), or else the changes placed by the server's own order
/// (``ServerOrderChanges``) and why.
package struct CheckedChanges: Sendable, Hashable {
    /// The changes to publish.
    package let changes: [ComputedChange]
    /// `nil` when the ordering's changes rebuilt the new result; otherwise what disagreed, e.g. `the query's
    /// ordering puts c/m before c/v, the server's result has c/v first (positions 1 and 2)`.
    package let mismatch: String?

    package init(changes: [ComputedChange], mismatch: String?) {
        self.changes = changes
        self.mismatch = mismatch
    }
}

extension DocumentChangeComputation {
    /// The changes that turn `old` into `new` (``changes(from:to:ordering:)``), checked: when applying them to
    /// `old` does not give `new` (the ordering disagrees with the order the server returned), the changes are
    /// computed again from `new`'s own order and the mismatch is described.
    ///
    /// `namesAreUnique` says `new` holds each name once (a Listen target's view, kept by name): then a first result
    /// (`old` empty) in the ordering's order is every document added at its own position, which is what the
    /// computation and the replay would give, found in one pass of n - 1 comparisons with no hashing and no copy of
    /// the names (a 100,000-document first snapshot hashed and copied every name three more times). `inOrder` says
    /// the caller knows each document of `new` sorts before the next by `ordering` (it checked as it built the list):
    /// then not even those comparisons are made again.
    ///
    /// - Complexity: the computation's, plus O(n) for the replay (O(n) more per modification that moves); nothing
    ///   when there are no changes. On a mismatch, ``ServerOrderChanges/changes(from:to:)``. A first result whose
    ///   names are unique and in the ordering's order: O(n) comparisons.
    package static func checkedChanges(
        from old: [Document], to new: [Document], ordering: DocumentOrdering, namesAreUnique: Bool = false,
        inOrder: Bool = false
    ) -> CheckedChanges {
        let unique = namesAreUnique
        if old.isEmpty, isEveryDocumentAdded(new, ordering: ordering, namesAreUnique: unique, inOrder: inOrder) {
            var added: [ComputedChange] = []
            added.reserveCapacity(new.count)
            for (position, document) in new.enumerated() {
                added.append(ComputedChange(type: .added, document: document, oldIndex: nil, newIndex: position))
            }
            return CheckedChanges(changes: added, mismatch: nil)
        }
        let computed = changes(from: old, to: new, ordering: ordering)
        guard !computed.isEmpty, !DocumentChangeReplay.rebuilds(computed, from: old, to: new) else {
            return CheckedChanges(changes: computed, mismatch: nil)
        }
        return CheckedChanges(
            changes: ServerOrderChanges.changes(from: old, to: new), mismatch: describeMismatch(in: new, ordering))
    }

    /// Whether the changes from an empty result to `new` are every document added at its own position: `new` holds
    /// each name once (`namesAreUnique`, the caller knows) and each document sorts before the next by `ordering`
    /// (`inOrder` says the caller checked; else it is checked here). The computation and the replay give exactly
    /// that list then (`FirstResultChangesTests`).
    /// - Complexity: O(1) with `inOrder`; else O(n) comparisons.
    package static func isEveryDocumentAdded(
        _ new: [Document], ordering: DocumentOrdering, namesAreUnique: Bool, inOrder: Bool
    ) -> Bool {
        namesAreUnique && (inOrder || zip(new, new.dropFirst()).allSatisfy { ordering.compare($0, $1) < 0 })
    }

    /// The first neighbours in `documents` that `ordering` puts the other way round.
    static func describeMismatch(in documents: [Document], _ ordering: DocumentOrdering) -> String {
        for position in documents.indices.dropLast()
        where ordering.compare(documents[position], documents[position + 1]) > 0 {
            let first = shortName(documents[position].name)
            let second = shortName(documents[position + 1].name)
            return "the query's ordering puts \(second) before \(first), the server's result has \(first) first "
                + "(positions \(position) and \(position + 1))"
        }
        return "the changes the query's ordering gives do not rebuild the server's result"
    }

    /// A document's path within its database (`c/d`), or the whole name when it has no `/documents/` part.
    static func shortName(_ name: String) -> String {
        guard let range = name.firstRange(of: "/documents/") else { return name }
        return String(name[range.upperBound...])
    }
}
