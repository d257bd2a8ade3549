import FirestoreREST

/// Fetches one poll's result in keys mode (two phases), full mode or delta mode, reusing the previous poll's
/// documents for every document whose `updateTime` did not move. The building block of the feed's poller, for
/// benchmarks and for callers that schedule polls themselves. Its requests go out with
/// `HTTPRequest.Priority.background`, so a crowd of polls never takes the connections writes and reads need.
package struct PollFetcher: Sendable {
    /// The result of one poll: the new state and what it cost.
    package struct Result: Sendable {
        /// The state after the poll: its documents in query order at its `readTime`, and the delta watermark.
        package var state: PollState
        /// Bytes, requests, latency, documents fetched and billed reads.
        package var statistics: PollStatistics

        /// The documents in query order, each the version at ``readTime``.
        package var documents: [Document] { state.documents }
        /// The time the result is consistent at.
        package var readTime: Timestamp { state.readTime ?? .minimum }
    }

    /// What a poll has spent so far: bytes, requests, documents fetched and billed reads.
    struct Spending {
        var bytes = 0
        var requests = 0
        var fetched = 0
        var billed = 0
    }

    /// The query polled.
    package let query: Query

    /// A fetcher for `query`.
    package init(query: Query) { self.query = query }

    /// Documents by byte-exact name, the first of repeated names kept.
    package static func index(_ documents: [Document]) -> [ByteExactName: Document] {
        Dictionary(documents.map { (ByteExactName(name: $0.name), $0) }, uniquingKeysWith: { first, _ in first })
    }
    /// Names per batchGet request (the request body grows with every name).
    static let batchSize = 300

    /// Runs one poll.
    /// - Parameters:
    ///   - mode: keys, full or delta.
    ///   - previous: the state after the last applied poll.
    /// - Throws: `FirestoreError` from the server or transport; `.invalidArgument` for an invalid query or
    ///   tracking field; `.internal` when a response carries no read time or phase two does not return a document
    ///   phase one listed (the poll is then retried).
    package func fetch(mode: PollMode, previous: PollState) async throws -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        var spent = Spending()
        switch mode {
        case .full:
            let (documents, readTime) = try await full(readTime: nil, spent: &spent)
            return Result(
                state: PollState(documents: documents, readTime: readTime),
                statistics: statistics(.full, spent, since: start, clock))
        case .keys:
            let (documents, readTime) = try await keys(readTime: nil, known: previous.byName, spent: &spent)
            return Result(
                state: PollState(documents: documents, readTime: readTime),
                statistics: statistics(.keys, spent, since: start, clock))
        case .delta(let field, let margin, let reconcileInterval):
            let path = try FieldPath(quoted: field)
            guard !path.isDocumentID else {
                throw FirestoreError.invalidArgument(
                    "delta polling needs a field that holds the server time, not __name__")
            }
            return try await delta(
                DeltaSettings(
                    mode: mode, field: path, margin: max(margin, .zero), reconcileInterval: reconcileInterval),
                previous: previous, start: start, clock: clock)
        }
    }

    /// One runQuery of whole documents.
    func full(readTime: Timestamp?, spent: inout Spending) async throws -> ([Document], Timestamp) {
        let response = try await query.runQuery(readTime: readTime, priority: .background)
        guard let time = response.readTime else {
            throw FirestoreError(code: .internal, message: "runQuery response carries no readTime")
        }
        let documents = Self.unique(response.documents)
        spent.bytes += response.responseBytes
        spent.requests += 1
        spent.fetched += documents.count
        spent.billed += BilledReads.runQuery(documentsReturned: response.documents.count)
        return (documents, time)
    }

    /// A keys scan: runQuery with `select: [__name__]`, then batchGet (at the same `readTime`) of the documents
    /// that are not in `known` at the listed `updateTime`.
    func keys(readTime: Timestamp?, known: [ByteExactName: Document], spent: inout Spending) async throws
        -> ([Document], Timestamp)
    {
        let keys = try await query.select(fields: []).runQuery(readTime: readTime, priority: .background)
        guard let time = keys.readTime else {
            throw FirestoreError(code: .internal, message: "runQuery response carries no readTime")
        }
        spent.bytes += keys.responseBytes
        spent.requests += 1
        spent.billed += BilledReads.runQuery(documentsReturned: keys.documents.count)
        let listed = Self.unique(keys.documents)
        let needed = listed.filter { key in
            known[ByteExactName(name: key.name)]?.updateTime != key.updateTime || key.updateTime == nil
        }
        var fetched: [ByteExactName: Document] = [:]
        var batchStart = needed.startIndex
        while batchStart < needed.endIndex {
            let end = min(batchStart + Self.batchSize, needed.endIndex)
            let response = try await query.firestore.batchGet(
                names: needed[batchStart..<end].map(\.name), mask: query.selection, readTime: time,
                priority: .background)
            for document in response.found.values { fetched[ByteExactName(name: document.name)] = document }
            spent.bytes += response.responseBytes
            spent.requests += 1
            spent.billed += BilledReads.batchGet(documentsRequested: end - batchStart)
            batchStart = end
        }
        spent.fetched += needed.count
        var documents: [Document] = []
        documents.reserveCapacity(listed.count)
        for key in listed {
            let name = ByteExactName(name: key.name)
            if let document = fetched[name] ?? known[name] {
                documents.append(document)
            } else {
                throw FirestoreError(
                    code: .internal, message: "batchGet at \(time) did not return \(key.name), which runQuery listed")
            }
        }
        return (documents, time)
    }

    func statistics(
        _ mode: PollMode, _ spent: Spending, since start: ContinuousClock.Instant, _ clock: ContinuousClock,
        marginRereads: Int = 0, keysScan: PollStatistics.KeysScan? = nil, drift: Int? = nil
    ) -> PollStatistics {
        PollStatistics(
            mode: mode, bytesReceived: spent.bytes, latency: clock.now - start, requests: spent.requests,
            documentsFetched: spent.fetched, billedReads: spent.billed, marginRereads: marginRereads,
            keysScan: keysScan, drift: drift)
    }

    /// The documents with repeated names (byte for byte) dropped, the first occurrence kept, so that a
    /// snapshot's list and its changes always agree.
    static func unique(_ documents: [Document]) -> [Document] {
        var seen: Set<ByteExactName> = []
        seen.reserveCapacity(documents.count)
        return documents.filter { seen.insert(ByteExactName(name: $0.name)).inserted }
    }
}
