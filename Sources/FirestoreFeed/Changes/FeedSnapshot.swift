import FirestoreREST

/// The one place a change feed's `QuerySnapshot` is put together from documents and computed changes, whatever the
/// source (a poll, a Listen snapshot point, a checkpoint resume, a coalesced delivery).
enum FeedSnapshot {
    /// The snapshot of `query` holding `documents` (in query order), with `changes` from the previous snapshot.
    ///
    /// A change whose document is the one `documents` holds at its `newIndex` (the same value: every addition of a
    /// first snapshot, most of later ones) shares that `DocumentSnapshot` instead of making another (a reference,
    /// its path and its segments per document: a first snapshot held two of each).
    /// - Complexity: O(documents + changes).
    static func make(
        query: Query, documents: [DocumentSnapshot], changes: [ComputedChange], readTime: Timestamp?,
        statistics: PollStatistics?, resumePoint: FeedResumePoint?
    ) -> QuerySnapshot {
        let firestore = query.firestore
        var snapshot = QuerySnapshot(
            query: query, documents: documents,
            documentChanges: changes.map { change in
                DocumentChange(
                    type: change.type,
                    document: held(change, in: documents, firestore)
                        ?? DocumentSnapshot(firestore: firestore, document: change.document),
                    oldIndex: change.oldIndex, newIndex: change.newIndex)
            },
            readTime: readTime, statistics: statistics)
        snapshot.resumePoint = resumePoint
        return snapshot
    }

    /// The snapshot `documents` holds at `change`'s `newIndex` when it is the one `DocumentSnapshot(firestore:document:)`
    /// would make for `change.document`: the same client, no read time, and the same document value (the same name,
    /// times and field storage: a copy of the same `Document`, not merely equal fields); otherwise `nil`.
    private static func held(_ change: ComputedChange, in documents: [DocumentSnapshot], _ firestore: Firestore)
        -> DocumentSnapshot?
    {
        guard change.type != .removed, let index = change.newIndex, documents.indices.contains(index) else {
            return nil
        }
        let snapshot = documents[index]
        guard snapshot.readTime == nil, snapshot.reference.firestore === firestore, let document = snapshot.document,
            document.createTime == change.document.createTime, document.updateTime == change.document.updateTime,
            sameBits(document.fields, change.document.fields), document.name.utf8Equals(change.document.name)
        else { return nil }
        return snapshot
    }

    /// Whether two values have the same bits: for a dictionary, the same storage (hence the same entries in the same
    /// order). Never true for two distinct storages, whatever they hold.
    private static func sameBits<T>(_ a: T, _ b: T) -> Bool {
        withUnsafeBytes(of: a) { a in withUnsafeBytes(of: b) { b in a.elementsEqual(b) } }
    }

    /// ``make(query:documents:changes:readTime:statistics:resumePoint:)`` from raw documents.
    static func make(
        query: Query, documents: [Document], changes: [ComputedChange], readTime: Timestamp?,
        statistics: PollStatistics?, resumePoint: FeedResumePoint?
    ) -> QuerySnapshot {
        let firestore = query.firestore
        return make(
            query: query, documents: documents.map { DocumentSnapshot(firestore: firestore, document: $0) },
            changes: changes, readTime: readTime, statistics: statistics, resumePoint: resumePoint)
    }

    /// The snapshot of `query` holding `documents` (in query order), every one added at its own position: each
    /// `DocumentSnapshot` and its `DocumentChange` made in one pass, while the document is in the cache (a first
    /// Listen snapshot, ``WatchSnapshotChanges/everyDocumentAdded``).
    /// - Complexity: O(documents).
    static func everyDocumentAdded(
        query: Query, documents: [Document], readTime: Timestamp?, statistics: PollStatistics?,
        resumePoint: FeedResumePoint?
    ) -> QuerySnapshot {
        let firestore = query.firestore
        var snapshots: [DocumentSnapshot] = []
        var changes: [DocumentChange] = []
        snapshots.reserveCapacity(documents.count)
        changes.reserveCapacity(documents.count)
        for (position, document) in documents.enumerated() {
            let snapshot = DocumentSnapshot(firestore: firestore, document: document)
            snapshots.append(snapshot)
            changes.append(DocumentChange(type: .added, document: snapshot, oldIndex: nil, newIndex: position))
        }
        var snapshot = QuerySnapshot(
            query: query, documents: snapshots, documentChanges: changes, readTime: readTime, statistics: statistics)
        snapshot.resumePoint = resumePoint
        return snapshot
    }

    /// ``make(query:documents:changes:readTime:statistics:resumePoint:)`` for a Listen snapshot's changes, said or
    /// listed (``WatchSnapshotChanges``).
    static func make(
        query: Query, documents: [Document], changes: WatchSnapshotChanges, readTime: Timestamp?,
        statistics: PollStatistics?, resumePoint: FeedResumePoint?
    ) -> QuerySnapshot {
        switch changes {
        case .everyDocumentAdded:
            everyDocumentAdded(
                query: query, documents: documents, readTime: readTime, statistics: statistics,
                resumePoint: resumePoint)
        case .computed(let list):
            make(
                query: query, documents: documents, changes: list, readTime: readTime, statistics: statistics,
                resumePoint: resumePoint)
        }
    }

    /// The snapshot a joining listener gets: `snapshot`'s documents, every one added, its read time, statistics and
    /// resume point.
    /// - Complexity: O(documents).
    static func initial(_ snapshot: QuerySnapshot) -> QuerySnapshot {
        let changes = snapshot.documents.enumerated().map { position, document in
            DocumentChange(type: .added, document: document, oldIndex: nil, newIndex: position)
        }
        var initial = QuerySnapshot(
            query: snapshot.query, documents: snapshot.documents, documentChanges: changes,
            readTime: snapshot.readTime, statistics: snapshot.statistics)
        initial.resumePoint = snapshot.resumePoint
        return initial
    }
}
