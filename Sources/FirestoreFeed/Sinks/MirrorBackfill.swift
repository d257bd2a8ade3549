import FirestoreREST

/// A mirror's backfill (issue 36): the query's result loaded into a ``FeedSink`` at one read time T, in pages by
/// `__name__`, each page one sink transaction that stores the page's last name as the resume point's
/// ``FeedSinkResumePoint/loadCursor``; a restart goes on after the stored cursor at the same T. Once the last page is
/// in, a batch with no cursor ends the load, and the Listen tail starts from T.
///
/// Each page also reconciles its range of names: a document the sink holds whose name falls after the previous
/// cursor and up to the page's last name (after the previous cursor, for the last page) and that the page does not
/// hold left the result by T, and is removed in the page's transaction. A sink that starts empty has nothing to
/// remove; one that holds a half load from an older read time (the load started over, ``FeedEvent/backfillRestarted(reason:)``)
/// or documents from an earlier feed ends the load holding exactly the result at T.
package enum MirrorBackfill {
    /// The default page size of ``QueryRepresentable/mirror(into:pageSize:policy:onEvent:)``.
    package static let defaultPageSize = 1000

    /// One page: the documents in name order, and the read time the server read them at.
    package struct Page: Sendable {
        package var documents: [Document]
        package var readTime: Timestamp?
        package var latency: Duration

        package init(documents: [Document], readTime: Timestamp?, latency: Duration = .zero) {
            self.documents = documents
            self.readTime = readTime
            self.latency = latency
        }
    }

    /// Reads the page of at most `limit` documents after the name `after` (`nil`: from the start) at `readTime`
    /// (`nil`: now; the page's read time is then the load's).
    package typealias Fetch =
        @Sendable (_ after: String?, _ readTime: Timestamp?, _ limit: Int) async throws -> Page

    /// Whether `query` can be loaded in pages by `__name__`: the server orders it by name alone (no explicit order
    /// but `__name__` ascending, no inequality filter, whose field would be ordered first), with no limit, offset or
    /// cursor (a page's cursor would replace the query's own, and a limit or offset counts from the start of the
    /// whole result, not from a page's). Another query is mirrored from a Listen target from scratch.
    package static func canPage(_ query: Query) -> Bool {
        query.normalizedOrderBy == [QueryOrder(field: .documentID, descending: false)] && query.limit == nil
            && query.offset == nil && !query.hasCursors
    }

    /// The fetch of `query`'s pages: `query` ordered by `__name__`, started after the cursor's document, limited to
    /// the page size, run at the read time (`runQuery(readTime:)`).
    package static func fetch(_ query: Query) -> Fetch {
        let ordered = query.orderedByName()
        return { after, readTime, limit in
            var page = ordered.limit(to: limit)
            if let after { page = page.start(after: [FirestoreValue.reference(after)]) }
            let started = ContinuousClock.now
            let response = try await page.runQuery(readTime: readTime)
            return Page(
                documents: response.documents, readTime: response.readTime ?? readTime,
                latency: ContinuousClock.now - started)
        }
    }

    /// Whether `error` is the server refusing a read time older than it keeps (`FAILED_PRECONDITION` or
    /// `INVALID_ARGUMENT` naming the read time: "The requested 'read_time' is too old." on the emulator).
    package static func isReadTimeTooOld(_ error: any Error) -> Bool {
        guard let error = error as? FirestoreError, error.code == .failedPrecondition || error.code == .invalidArgument
        else { return false }
        let message = error.message.lowercased()
        return message.contains("read_time") || message.contains("read time") || message.contains("readtime")
    }

    /// Loads the result into `sink`, going on from `stored` when it holds a load cursor (at its read time), and
    /// returns the read time T the sink's documents are now consistent at (the last batch stored T with no cursor).
    /// A read time the server refuses as too old starts the load over at a new one (``FeedEvent/backfillRestarted(reason:)``).
    /// - Returns: T, or `nil` when the calling task was cancelled (the pages applied stay, with their cursor).
    /// - Throws: the fetch's error (a too-old read time aside); the sink's error (its page not applied).
    /// - Complexity: one fetch and one sink transaction per page, plus one ``FeedSink/documents()`` at the start and
    ///   at each restart.
    package static func load(
        into sink: some FeedSink, from stored: FeedSinkResumePoint?, query identity: String, generation: Int64,
        pageSize: Int, fetch: Fetch, onEvent: (@Sendable (FeedEvent) -> Void)?
    ) async throws -> Timestamp? {
        var readTime: Timestamp? = stored?.loadCursor == nil ? nil : stored?.readTime
        var cursor: String? = readTime == nil ? nil : stored?.loadCursor
        var held = try await heldNames(sink)
        var loaded = 0
        while true {
            if Task.isCancelled { return nil }
            let page: Page
            do {
                page = try await fetch(cursor, readTime, pageSize)
            } catch let failure where readTime != nil && isReadTimeTooOld(failure) {
                onEvent?(.backfillRestarted(reason: "\(failure)"))
                readTime = nil
                cursor = nil
                loaded = 0
                held = try await heldNames(sink)
                continue
            } catch {
                if Task.isCancelled { return nil }
                throw error
            }
            // The first page read now: its read time is the load's. The emulator always sends one; a page without
            // would leave nothing consistent to resume the Listen tail from.
            guard let time = readTime ?? page.readTime else {
                throw FirestoreError(
                    code: .internal, message: "mirror backfill: the server's runQuery answer has no read time")
            }
            readTime = time
            let complete = page.documents.count < pageSize
            let last = page.documents.last?.name
            let gone = departed(from: held, after: cursor, upTo: complete ? nil : last, page: page.documents)
            let batch = FeedSinkBatch(
                changes: page.documents.map { .put($0) } + gone.map { .remove(name: $0) }, readTime: time,
                resumeToken: nil, shard: 0, generation: generation, query: identity,
                loadCursor: complete ? nil : last)
            try await CancellationShield.run { try await sink.apply(batch) }
            loaded += page.documents.count
            let statistics = PollStatistics(
                mode: .full, bytesReceived: 0, latency: page.latency, requests: 1,
                documentsFetched: page.documents.count,
                billedReads: BilledReads.runQuery(documentsReturned: page.documents.count))
            onEvent?(.backfillPage(loaded: loaded, readTime: time, complete: complete, statistics: statistics))
            if complete { return time }
            cursor = last
        }
    }

    /// The names the sink holds, in `__name__` order.
    private static func heldNames(_ sink: some FeedSink) async throws -> [String] {
        try await sink.documents().map(\.name).sorted { FirestoreValue.compareResourceNames($0, $1) < 0 }
    }

    /// The names of `held` (in `__name__` order) after `after` (`nil`: from the start) and up to `upTo` (`nil`: to
    /// the end) that `page` does not hold: documents that left the result by the page's read time.
    /// - Complexity: O(h + p) for h held names and p page documents, plus a binary search.
    package static func departed(from held: [String], after: String?, upTo: String?, page: [Document]) -> [String] {
        var low = 0
        if let after {
            var high = held.count
            while low < high {
                let middle = (low + high) / 2
                if FirestoreValue.compareResourceNames(held[middle], after) <= 0 {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
        }
        let present = Set(page.map(\.name))
        var gone: [String] = []
        for name in held[low...] {
            if let upTo, FirestoreValue.compareResourceNames(name, upTo) > 0 { break }
            if !present.contains(name) { gone.append(name) }
        }
        return gone
    }
}
