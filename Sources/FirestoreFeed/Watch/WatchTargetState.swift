import FirestoreREST

/// One Listen target's view, as the watch change aggregator keeps it: the documents the server says match, the
/// changes received since the last consistent snapshot point, whether the target is `CURRENT`, and the resume
/// token of the last snapshot that was applied.
///
/// Documents are keyed by their full resource name compared byte for byte (``ByteExactName``); the published
/// list is in the query's order (``DocumentOrdering``) with the query's limit applied.
package struct WatchTargetState: Sendable {
    /// The order the target's documents are published in.
    package let ordering: DocumentOrdering
    /// The limit applied to the published list, or `nil`.
    package let limit: DocumentLimit?
    /// Which document names may belong to the target (its query's parent and collection), or `nil` for any: a
    /// document outside it is a protocol error (``WatchChangeAggregator``).
    package var scope: ListenScope?
    /// Whether the server marked the target `CURRENT` (its view reflects every change before it was added) and no
    /// `RESET` followed.
    package var isCurrent = false
    /// Whether a snapshot was published (the first one is published even when empty).
    package var hasPublished = false
    /// The documents the server says match, after the last snapshot point.
    package var documents: [ByteExactName: Document] = [:]
    /// The same documents in query order (no limit applied), kept sorted as changes are applied.
    package var ordered: [Document] = []
    /// The last published list, in query order, limit applied.
    package var published: [Document] = []
    /// Changes since the last snapshot point: a new version, or `nil` when the document left the target, in the
    /// order the names arrived (the query's order for a first snapshot, so sorting them is one pass).
    package var pending = WatchPendingChanges()
    /// The resume token of the last snapshot point the target passed while current: every change before it has
    /// been applied, so a listen resumed with it misses nothing.
    package var resumeToken: [UInt8]?
    /// A read time the view is known to be consistent at, sent as `read_time` when the target is added without a
    /// ``resumeToken``: a view seeded from a mirror's backfill read at that time (``CheckpointResume``). `nil` once a
    /// snapshot point brings a token, and for a target listened to again from scratch.
    package var resumeReadTime: Timestamp?
    /// A token received since the last snapshot point; it becomes ``resumeToken`` at the next one.
    package var pendingResumeToken: [UInt8]?
    /// The read time of the last snapshot point the target passed.
    package var readTime: Timestamp?
    /// The read time of the last `RESET`, until a `CURRENT` read at or after it. The emulator, resetting a target
    /// during its initial load under concurrent writes, sends `RESET`, then a `CURRENT` read before the reset, a
    /// `NO_CHANGE` snapshot point and only then the documents of the new state (observed: `WatchResetOrderTests`).
    package var resetReadTime: Timestamp?

    /// An empty target.
    package init(ordering: DocumentOrdering, limit: DocumentLimit?) {
        self.ordering = ordering
        self.limit = limit
    }

    /// How many documents the server would count for this target now: the view with the pending changes applied
    /// (what an `ExistenceFilter.count` is compared with).
    package var currentCount: Int {
        var count = documents.count
        for (name, change) in pending {
            switch (documents[name] != nil, change != nil) {
            case (false, true): count += 1
            case (true, false): count -= 1
            default: break
            }
        }
        return count
    }

    /// Every document name the target would hold now (view and pending changes applied).
    package var currentNames: [ByteExactName] {
        var names = Set(documents.keys)
        for (name, change) in pending {
            if change == nil { names.remove(name) } else { names.insert(name) }
        }
        return Array(names)
    }

    /// Buffers a change of the document `name` until the next snapshot point: its new version, or `nil` when it
    /// left the target.
    /// - Returns: how many documents have a buffered change, or `nil` when `change` is a document outside
    ///   ``scope`` (nothing is buffered: a protocol error for the caller to report).
    /// - Complexity: O(1) on average, plus the length of the name when there is a scope.
    package mutating func buffer(_ change: Document?, named name: ByteExactName) -> Int? {
        if let document = change, let scope, !scope.contains(document.name) { return nil }
        pending[name] = .some(change)
        return pending.count
    }

    /// `RESET`: the target is no longer current, changes not yet applied are dropped, and every document of the
    /// view is marked as gone until the server sends it again (`listen-reset.json`). `readTime` is the RESET's:
    /// a `CURRENT` read before it does not make the target current again (``resetReadTime``).
    package mutating func reset(readTime: Timestamp? = nil) {
        resetReadTime = readTime
        isCurrent = false
        pending.removeAll()
        for name in documents.keys { pending[name] = .some(nil) }
    }

    /// The stream ended: changes not yet applied are dropped (a resumed listen sends them again after
    /// ``resumeToken``); the target is current again only when the server says so.
    package mutating func streamDropped() {
        isCurrent = false
        pending.removeAll()
        pendingResumeToken = nil
    }

    /// Applies the pending changes at a consistent snapshot point.
    ///
    /// A new version replaces the old one only when its `updateTime` differs (`listen-nomod.json`), so the
    /// published document and the change list agree.
    /// The changes are checked (``DocumentChangeComputation/checkedChanges(from:to:ordering:)``): the list is kept
    /// in the ordering's order, so they always rebuild it unless the computation has a fault, and then they are
    /// computed from the list's own order and `mismatch` says what disagreed.
    /// When the published list was empty (or none was published) and the new one is in the ordering's order with
    /// each name once (the list is kept so), the changes are every document added: said so
    /// (``WatchSnapshotChanges/everyDocumentAdded``) instead of listed.
    /// - Returns: the published list, its changes and the mismatch, or `nil` when nothing visible changed and a
    ///   snapshot was already published, or when `readTime` is before the last published one (the changes stay
    ///   pending).
    /// - Complexity: O(p log n + p log p) comparisons for p pending changes and n documents (each old version is
    ///   found by binary search; up to ``placedOneByOne`` changes are placed one by one, O(n) moves each, more are
    ///   sorted and merged into the list in one pass, O(n)); O(p) comparisons to sort when the new versions arrived
    ///   in the ordering's order (a first snapshot), plus the change computation (``DocumentChangeComputation``).
    package mutating func applyPending(readTime: Timestamp?) -> (
        documents: [Document], changes: WatchSnapshotChanges, mismatch: String?
    )? {
        // Never backwards: a snapshot point read before the published one (the emulator sends such stale read times
        // after a resume) is no point for this target. The changes up to it are already in the published view, and
        // applying them would put older versions of documents changed since under the later time; they wait, still
        // pending, for the stream to pass the published read time, and later versions of the same documents
        // replace them meanwhile.
        if let readTime, let published = self.readTime, readTime < published { return nil }
        if let pendingResumeToken {
            resumeToken = pendingResumeToken
            resumeReadTime = nil
        }
        pendingResumeToken = nil
        if let readTime { self.readTime = readTime }
        if pending.isEmpty && hasPublished { return nil }
        var inOrder = false
        if pending.count <= Self.placedOneByOne {
            for (name, change) in pending {
                let old = documents[name]
                if let document = change, let old, old.updateTime == document.updateTime, old.updateTime != nil {
                    continue
                }
                if let old, let index = position(of: old) { ordered.remove(at: index) }
                if let document = change {
                    documents[name] = document
                    ordered.insert(document, at: insertionPoint(of: document))
                } else {
                    documents.removeValue(forKey: name)
                }
            }
        } else {
            inOrder = mergePending()
        }
        pending.removeAll()
        var list = ordered
        switch limit {
        case .first(let n)?: if list.count > n { list.removeLast(list.count - n) }
        case .last(let n)?: if list.count > n { list.removeFirst(list.count - n) }
        case nil: break
        }
        let isFirst = !hasPublished
        // ``ordered`` holds each name of ``documents`` once.
        let namesAreUnique = ordered.count == documents.count
        if published.isEmpty,
            DocumentChangeComputation.isEveryDocumentAdded(
                list, ordering: ordering, namesAreUnique: namesAreUnique, inOrder: inOrder)
        {
            // Said, not listed (``WatchSnapshotChanges``): no change when the list is empty too.
            published = list
            hasPublished = true
            guard isFirst || !list.isEmpty else { return nil }
            return (list, .everyDocumentAdded, nil)
        }
        let checked = DocumentChangeComputation.checkedChanges(
            from: published, to: list, ordering: ordering, namesAreUnique: namesAreUnique, inOrder: inOrder)
        published = list
        hasPublished = true
        guard isFirst || !checked.changes.isEmpty else { return nil }
        return (list, .computed(checked.changes), checked.mismatch)
    }

    /// Up to this many pending changes are placed in ``ordered`` one by one (each found and placed by binary search,
    /// O(n) moves each); more are merged in one pass (``mergePending()``).
    package static let placedOneByOne = 8

    /// Applies ``pending`` to ``documents`` and ``ordered`` in one pass: the versions replaced and the documents gone
    /// are found by binary search and dropped, the new versions are sorted by the ordering and merged in. The list
    /// is the one placing them one by one gives (each new version lands before the first document that does not
    /// sort before it; names are unique, so no two compare equal), in O(n + p log p) instead of O(p * n) moves: a
    /// first snapshot of 100,000 documents placed one by one moved 2.5 billion documents.
    /// - Returns: whether ``ordered`` is known to be in the ordering's order, each document sorting before the next
    ///   (a list that was empty and additions that arrived in that order); `false` says nothing.
    private mutating func mergePending() -> Bool {
        var dropped = [Bool](repeating: false, count: ordered.count)
        var droppedCount = 0
        var additions: [Document] = []
        additions.reserveCapacity(pending.count)
        // Grown once, not rehashed about log2(p) times as the versions arrive (each rehash moves every entry to a
        // random place: at 100,000 documents, cache misses for each).
        documents.reserveCapacity(documents.count + pending.count)
        let hadDocuments = !documents.isEmpty
        let ordering = self.ordering
        // Whether the additions arrived in the ordering's order (each sorts before the next), checked as they come,
        // while each is in the cache: the query's order when the server sends a first snapshot, and then checking
        // is all the sorting there is (n - 1 comparisons).
        var inOrder = true
        // The changes are taken out as they are applied (``WatchPendingChanges/removeAll(passingEach:)``).
        var changes = pending
        pending = WatchPendingChanges()
        changes.removeAll { name, change in
            // A first snapshot has no old version to look for: one hash of the name, not two.
            let old = hadDocuments ? documents[name] : nil
            if let document = change, let old, old.updateTime == document.updateTime, old.updateTime != nil {
                return
            }
            if let old, let index = position(of: old), !dropped[index] {
                dropped[index] = true
                droppedCount += 1
            }
            if let document = change {
                documents[name] = document
                if inOrder, let last = additions.last, ordering.compare(last, document) >= 0 { inOrder = false }
                additions.append(document)
            } else {
                documents.removeValue(forKey: name)
            }
        }
        guard !additions.isEmpty || droppedCount > 0 else { return false }
        if !inOrder {
            additions.sort { ordering.compare($0, $1) < 0 }
        }
        // Nothing to merge with (a first snapshot): the additions are the list, not copied once more.
        if ordered.isEmpty {
            ordered = additions
            return inOrder
        }
        var merged: [Document] = []
        merged.reserveCapacity(ordered.count - droppedCount + additions.count)
        var next = 0
        for index in ordered.indices where !dropped[index] {
            let existing = ordered[index]
            while next < additions.count, ordering.compare(existing, additions[next]) >= 0 {
                merged.append(additions[next])
                next += 1
            }
            merged.append(existing)
        }
        merged.append(contentsOf: additions[next...])
        ordered = merged
        return false
    }

    /// The first index of ``ordered`` whose document does not sort before `document`.
    private func insertionPoint(of document: Document) -> Int {
        var low = 0
        var high = ordered.count
        while low < high {
            let middle = (low + high) / 2
            if ordering.compare(ordered[middle], document) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of `document` (this exact version, by name) in ``ordered``, or `nil`.
    private func position(of document: Document) -> Int? {
        let name = ByteExactName(name: document.name)
        var index = insertionPoint(of: document)
        // The ordering ends with `__name__`, so equal documents are the same name; scan the (empty) run of ties.
        while index < ordered.count, ordering.compare(ordered[index], document) == 0 {
            if ByteExactName(name: ordered[index].name) == name { return index }
            index += 1
        }
        return ordered.firstIndex { ByteExactName(name: $0.name) == name }
    }
}
