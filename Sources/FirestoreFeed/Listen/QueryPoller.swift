import FirestoreREST

/// Polls one query with runQuery and turns consecutive results into ``QuerySnapshot``s carrying the
/// `DocumentChange`s between them (``DocumentChangeComputation``).
///
/// - The first snapshot lists every document as added; later snapshots are published only when something
///   changed.
/// - A failed poll keeps the last good state: nothing is published, ``onTransientError`` hears of it, and
///   the next interval polls again. A permanent error (``PollingPolicy/isPermanent(_:)``) ends the feed.
/// - A response whose `readTime` is older than the last applied one is dropped, so a stale answer can never
///   bring back a deleted document.
struct QueryPoller: Sendable {
    let query: Query
    let policy: PollingPolicy
    let clock: any Clock<Duration>
    let onTransientError: (@Sendable (FirestoreError) -> Void)?

    /// Runs until the task is cancelled or a permanent error occurs, calling `publish` with each snapshot.
    /// - Throws: the permanent ``FirestoreError``, or `CancellationError` when cancelled during a sleep.
    func run(publish: @Sendable (QuerySnapshot) -> Void) async throws {
        _ = try query.structuredQuery()
        let ordering = DocumentOrdering(query: query)
        var previous: [Document] = []
        var lastReadTime: Timestamp?
        var isFirst = true
        while !Task.isCancelled {
            do {
                var response = try await query.runQuery()
                guard response.readTime != nil else {
                    // Every runQuery stream ends with a readTime (firestore-rest.md §1.3); a body without one
                    // (empty, `{}`, `[]`) is broken, and applying it would empty the list.
                    throw FirestoreError(code: .internal, message: "runQuery response carries no readTime")
                }
                response.documents = Self.unique(response.documents)
                let isStale = response.readTime.map { time in lastReadTime.map { time < $0 } ?? false } ?? false
                if !isStale {
                    let changes = DocumentChangeComputation.changes(from: previous, to: response.documents,
                                                                    ordering: ordering)
                    if isFirst || !changes.isEmpty {
                        publish(snapshot(documents: response.documents, changes: changes, readTime: response.readTime))
                    }
                    previous = response.documents
                    lastReadTime = response.readTime ?? lastReadTime
                    isFirst = false
                }
            } catch let error as FirestoreError {
                if error.code == .cancelled, Task.isCancelled { return }
                if PollingPolicy.isPermanent(error) { throw error }
                onTransientError?(error)
            }
            try await clock.sleep(for: policy.interval)
        }
    }

    /// The documents with repeated names (byte for byte) dropped, the first occurrence kept, so that a
    /// snapshot's list and its changes always agree.
    static func unique(_ documents: [Document]) -> [Document] {
        var seen: Set<ByteExactName> = []
        seen.reserveCapacity(documents.count)
        return documents.filter { seen.insert(ByteExactName(name: $0.name)).inserted }
    }

    func snapshot(documents: [Document], changes: [ComputedChange], readTime: Timestamp?) -> QuerySnapshot {
        let firestore = query.firestore
        return QuerySnapshot(
            query: query,
            documents: documents.map { DocumentSnapshot(firestore: firestore, document: $0) },
            documentChanges: changes.map { change in
                DocumentChange(type: change.type, document: DocumentSnapshot(firestore: firestore, document: change.document),
                               oldIndex: change.oldIndex, newIndex: change.newIndex)
            },
            readTime: readTime)
    }
}
