import FirestoreREST

/// The one place a change feed's `QuerySnapshot` is put together from documents and computed changes, whatever the
/// source (a poll, a Listen snapshot point, a checkpoint resume, a coalesced delivery).
enum FeedSnapshot {
    /// The snapshot of `query` holding `documents` (in query order), with `changes` from the previous snapshot.
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
                    type: change.type, document: DocumentSnapshot(firestore: firestore, document: change.document),
                    oldIndex: change.oldIndex, newIndex: change.newIndex)
            },
            readTime: readTime, statistics: statistics)
        snapshot.resumePoint = resumePoint
        return snapshot
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
