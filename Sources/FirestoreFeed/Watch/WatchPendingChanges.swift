import FirestoreREST

/// The changes one Listen target received since its last snapshot point, by document name, kept in the order the
/// names first arrived: a new version, or `nil` when the document left the target.
///
/// The arrival order is what makes a large first snapshot cheap: the server sends a target's documents in the query's
/// order, so the additions ``WatchTargetState`` sorts at the snapshot point are already sorted and the sort is one
/// pass (n - 1 comparisons) instead of O(n log n) comparisons over a dictionary's random order (a 100,000-document
/// first snapshot spent more instructions sorting than decoding).
///
/// Names are looked up in a dictionary of positions keyed by the name with its hash (``PrehashedName``: growing the
/// table reads no name) and the changes kept in an array in arrival order; a later change of the same name replaces
/// the earlier one in place.
package struct WatchPendingChanges: Sendable, Sequence {
    /// One name's latest change; `isLive` is `false` once the name was taken out (``subscript(_:)`` set to `nil`).
    fileprivate struct Entry: Sendable {
        var name: ByteExactName
        var change: Document?
        var isLive: Bool
    }

    private var positions: [PrehashedName: Int] = [:]
    private var entries: [Entry] = []

    /// No change.
    package init() {}

    /// How many names have a change.
    package var count: Int { positions.count }

    /// Whether no name has a change.
    package var isEmpty: Bool { positions.isEmpty }

    /// The change of `name`: `.some(document)` for a new version, `.some(nil)` when it left the target, `nil` when
    /// nothing changed it. Setting a change of a name already changed replaces it and keeps its place; setting
    /// `nil` takes the name out.
    /// - Complexity: O(1) on average.
    package subscript(_ name: ByteExactName) -> Document?? {
        get { positions[PrehashedName(name)].map { entries[$0].change } }
        set {
            let key = PrehashedName(name)
            if let change = newValue {
                // One lookup, new name or not: a new one is given the next position as it is found.
                let next = entries.count
                let position = Self.value(&positions[key, default: next])
                if position == next {
                    entries.append(Entry(name: name, change: change, isLive: true))
                } else {
                    entries[position].change = change
                }
            } else if let position = positions.removeValue(forKey: key) {
                entries[position].change = nil
                entries[position].isLive = false
            }
        }
    }

    /// `value`, read through an `inout` access (a `Dictionary` subscript with a default inserts it as it is found).
    private static func value(_ value: inout Int) -> Int { value }

    /// Drops every change.
    package mutating func removeAll() {
        positions = [:]
        entries = []
    }

    /// Drops every change, passing each to `body` in arrival order as it is taken out: its name and document are let
    /// go right after `body` used them, while they are still in the cache. Dropping them afterwards was one more pass
    /// over every document's storage (at 100,000 documents, cache misses for each).
    package mutating func removeAll(passingEach body: (_ name: ByteExactName, _ change: Document?) -> Void) {
        positions = [:]
        var taken = entries
        entries = []
        for index in taken.indices {
            var entry = Entry(name: "", change: nil, isLive: false)
            swap(&entry, &taken[index])
            if entry.isLive { body(entry.name, entry.change) }
        }
    }

    /// The names and their changes, in the order the names first arrived.
    package func makeIterator() -> Iterator { Iterator(entries: entries.makeIterator()) }

    /// Iterates ``WatchPendingChanges`` in arrival order.
    package struct Iterator: IteratorProtocol {
        fileprivate var entries: IndexingIterator<[Entry]>

        package mutating func next() -> (name: ByteExactName, change: Document?)? {
            while let entry = entries.next() {
                if entry.isLive { return (entry.name, entry.change) }
            }
            return nil
        }
    }

    /// The number of changes (a `reserveCapacity` estimate).
    package var underestimatedCount: Int { positions.count }
}
