import FirestoreREST

extension PollFetcher {
    /// The settings of ``PollMode/delta(field:margin:reconcileInterval:)``, checked.
    struct DeltaSettings {
        let mode: PollMode
        let field: FieldPath
        let margin: Duration
        let reconcileInterval: Duration
    }

    /// One delta poll (``PollMode/delta(field:margin:reconcileInterval:)``): the documents whose tracking field is
    /// at or after the watermark, then a count at the same `readTime` (``DeltaMerge``); a keys scan at that
    /// `readTime` instead when there is nothing to build on, the count differs, the window's edge may have moved,
    /// or the query cannot be polled by delta; and a reconciling keys scan every `reconcileInterval`.
    /// - Throws: as ``fetch(mode:previous:)``.
    func delta(
        _ settings: DeltaSettings, previous: PollState, start: ContinuousClock.Instant, clock: ContinuousClock
    ) async throws -> Result {
        var spent = Spending()
        if let reason = DeltaRequests.unsupportedReason(query) {
            return try await scan(
                settings, previous: previous, readTime: nil, known: previous.byName, lastReconcile: nil,
                spent: &spent,
                statistics: { spent, _ in
                    statistics(settings.mode, spent, since: start, clock, keysScan: .unsupportedQuery(reason))
                })
        }
        guard let previousReadTime = previous.readTime, let watermark = previous.deltaWatermark,
            let lastReconcile = previous.lastKeysScan
        else {
            return try await scan(
                settings, previous: previous, readTime: nil, known: previous.byName, lastReconcile: nil,
                spent: &spent,
                statistics: { spent, _ in
                    statistics(settings.mode, spent, since: start, clock, keysScan: .firstPoll)
                })
        }
        let requests = try DeltaRequests(query: query, field: settings.field)
        let parent = try query.parentPath()
        let response = try await query.firestore.runQuery(
            parent: parent, structuredQuery: requests.changedSince(watermark), priority: .background)
        guard let readTime = response.readTime else {
            throw FirestoreError(code: .internal, message: "runQuery response carries no readTime")
        }
        spent.bytes += response.responseBytes
        spent.requests += 1
        spent.billed += BilledReads.runQuery(documentsReturned: response.documents.count)
        spent.fetched += response.documents.count
        let changed = response.documents.filter(requests.matchesCursors)
        let outcome = DeltaMerge.merge(
            previous: previous.documents, changed: changed, ordering: DocumentOrdering(query: query),
            limit: DocumentLimit(query))
        var known = previous.byName
        for document in changed { known[ByteExactName(name: document.name)] = document }
        let isReconcileDue = previousReadTime.duration(since: lastReconcile) >= settings.reconcileInterval
        func scanning(_ reason: PollStatistics.KeysScan, reconciled: Bool) async throws -> Result {
            try await scan(
                settings, previous: previous, readTime: readTime, known: known,
                lastReconcile: reconciled ? readTime : lastReconcile, spent: &spent,
                statistics: { spent, scanned in
                    statistics(
                        settings.mode, spent, since: start, clock, marginRereads: outcome.rereads, keysScan: reason,
                        drift: reconciled ? Self.drift(outcome.documents, scanned) : nil)
                })
        }
        guard !outcome.edgeMoved, let countQuery = requests.count(endingAt: outcome.edge) else {
            return try await scanning(.windowEdge, reconciled: false)
        }
        let count = try await query.firestore.runCount(
            parent: parent, structuredQuery: countQuery, readTime: readTime)
        spent.bytes += count.responseBytes
        spent.requests += 1
        spent.billed += BilledReads.aggregation(indexEntries: count.count)
        guard count.count == outcome.expectedCount else {
            return try await scanning(
                .countDiffers(counted: count.count, expected: outcome.expectedCount), reconciled: false)
        }
        if isReconcileDue { return try await scanning(.reconcile, reconciled: true) }
        return Result(
            state: PollState(
                documents: outcome.documents, readTime: readTime,
                deltaWatermark: readTime.subtracting(settings.margin), lastKeysScan: lastReconcile),
            statistics: statistics(settings.mode, spent, since: start, clock, marginRereads: outcome.rereads))
    }

    /// A keys scan at `readTime` (or now) that replaces the documents: whole documents with one runQuery when
    /// nothing is known, else names and versions then a batchGet of what is not `known` at its version.
    private func scan(
        _ settings: DeltaSettings, previous: PollState, readTime: Timestamp?, known: [ByteExactName: Document],
        lastReconcile: Timestamp?, spent: inout Spending, statistics: (Spending, [Document]) -> PollStatistics
    ) async throws -> Result {
        let (documents, time) =
            known.isEmpty
            ? try await full(readTime: readTime, spent: &spent)
            : try await keys(readTime: readTime, known: known, spent: &spent)
        return Result(
            state: PollState(
                documents: documents, readTime: time, deltaWatermark: time.subtracting(settings.margin),
                lastKeysScan: lastReconcile ?? time),
            statistics: statistics(spent, documents))
    }

    /// How many documents differ between what the delta built and what a scan found: in one and not the other, or
    /// at another `updateTime`. O(n).
    static func drift(_ built: [Document], _ scanned: [Document]) -> Int {
        let builtByName = index(built)
        var differing = 0
        var matched = 0
        for document in scanned {
            if let own = builtByName[ByteExactName(name: document.name)] {
                matched += 1
                if own.updateTime != document.updateTime { differing += 1 }
            } else {
                differing += 1
            }
        }
        return differing + (builtByName.count - matched)
    }
}
