import FirestoreREST

extension QueryRepresentable {
    /// Mirrors this query into `sink`: a backfill at one read time, then the Listen stream from that time, exactly
    /// once into the sink's store, until the calling task is cancelled (then the batch in hand is committed and the
    /// call returns normally).
    ///
    /// - Backfill: when the sink holds no resume point for shard 0, or one with a
    ///   ``FeedSinkResumePoint/loadCursor`` (a load in progress), the result is loaded at one read time T in pages of
    ///   `pageSize` documents ordered by `__name__`: each page is one `runQuery` at T starting after the last name
    ///   loaded, applied as one ``FeedSinkBatch`` (puts, read time T, no resume token, the page's last name as
    ///   `loadCursor`) in one sink transaction; the last page stores no cursor. T is the read time of the first
    ///   page's answer. A process stopped mid-load goes on after the stored cursor at the same T. A load that
    ///   outlives the server's read-time window (1 hour without point-in-time recovery) is refused by the server with
    ///   an error naming the read time; it then starts over at a new T (``FeedEvent/backfillRestarted(reason:)``),
    ///   each page also removing what the sink holds in its range of names that left the result by then. Each page
    ///   is reported by ``FeedEvent/backfillPage(loaded:readTime:complete:statistics:)`` with its billed reads. A
    ///   page that still fails after the client's retries (`Firestore.retryPolicy`) ends the call with its error;
    ///   the next call goes on after the stored cursor.
    ///   Only a query the server orders by name alone can be paged (no explicit order but `__name__` ascending, no
    ///   inequality filter, no limit, offset or cursor): another query starts its Listen target from scratch instead,
    ///   which delivers the whole result in its first snapshot (a limit or an order by a field cannot be cut into
    ///   pages by name; one by field values would need the values in the cursor).
    /// - Tail: the Listen target starts from the sink's documents (``FeedSink/documents()``) and the sink's resume
    ///   point: its resume token when it has one less than 30 minutes old, else its read time (after a backfill, T)
    ///   when less than 30 minutes old, so the server sends only what changed since (Firestore's `Target.read_time`:
    ///   "the client must know the state of matching documents at this time"). The emulator answers a read time with
    ///   `RESET` and the whole current result instead (`ListenReadTimeResumeLiveTests`): the view seeded with the
    ///   sink's documents is reset and rebuilt, as correct, but every document is sent. An older point starts the
    ///   target from scratch, and its first snapshot is compared with the sink's documents. Either way the first
    ///   snapshot lists only the changes
    ///   from the sink's documents, and `onEvent` hears ``FeedEvent/resumedFromCheckpoint(key:readTime:)`` with the
    ///   key `mirror`.
    /// - Each snapshot becomes one ``FeedSinkBatch`` (shard 0, at the stored generation, 0 at first) that the sink
    ///   applies in one transaction with its resume point; the next snapshot is taken only after that commit. A
    ///   process killed at any moment resumes from the last commit, and what it receives again is a no-op there (the
    ///   version guard).
    /// - Parameters:
    ///   - sink: the store (``SQLiteMirror``).
    ///   - pageSize: the documents of a backfill page (at least 1; default 1,000).
    ///   - policy: the feed's policy (retries, backoff).
    ///   - onEvent: called with feed events.
    /// - Throws: ``FeedSinkStaleGeneration`` when the sink holds a higher generation for shard 0 (a feed group mirrors
    ///   into it): nothing more is delivered; `FirestoreError` `.failedPrecondition` when the sink's resume point is
    ///   another query's (nothing is applied), `.invalidArgument` for a page size below 1; the sink's error (its batch
    ///   not applied); the backfill's or the feed's permanent error.
    public func mirror(
        into sink: some FeedSink, pageSize: Int = 1000, policy: PollingPolicy = PollingPolicy(),
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) async throws {
        try await mirror(
            into: sink, pageSize: pageSize, policy: policy, fetch: MirrorBackfill.fetch(query), onEvent: onEvent)
    }

    /// ``mirror(into:pageSize:policy:onEvent:)`` with the backfill's pages read by `fetch` (tests script it).
    package func mirror(
        into sink: some FeedSink, pageSize: Int, policy: PollingPolicy, fetch: MirrorBackfill.Fetch,
        onEvent: (@Sendable (FeedEvent) -> Void)?
    ) async throws {
        let query = self.query
        guard pageSize >= 1 else {
            throw FirestoreError.invalidArgument("mirror: the page size must be at least 1, not \(pageSize)")
        }
        let identity = try QueryIdentity(query).description
        var stored = try await sink.resumePoint(shard: 0)
        if let held = stored?.query, held != identity {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "mirror of \(identity.prefix(200)): the sink holds the resume point of another query "
                    + "(\(held.prefix(200))); mirror this query into another table, or empty that one")
        }
        let generation = stored?.generation ?? 0
        if MirrorBackfill.canPage(query), stored == nil || stored?.loadCursor != nil {
            guard
                let loadedAt = try await MirrorBackfill.load(
                    into: sink, from: stored, query: identity, generation: generation, pageSize: pageSize,
                    fetch: fetch, onEvent: onEvent)
            else { return }
            stored = FeedSinkResumePoint(resumeToken: nil, readTime: loadedAt, generation: generation, query: identity)
        }
        var checkpoint: FeedCheckpoint?
        if let stored {
            checkpoint = FeedCheckpoint(
                key: "mirror", query: identity, source: "listen", deltaField: nil,
                documents: try await sink.documents(), readTime: stored.readTime, deltaWatermark: nil,
                lastKeysScan: nil, resumeToken: stored.resumeToken, committedAt: .now(), generation: stored.generation)
        }
        let resumePoint = checkpoint.flatMap { Self.listenResumePoint(of: $0, now: .now()) }
        let target = "mirror " + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let upstream = CheckpointUpstream.listen(
            query, policy: policy, pool: .shared, checkpointID: target, onEvent: onEvent, resumingFrom: checkpoint,
            at: resumePoint)
        defer { upstream.terminate() }
        var resumingFrom = checkpoint
        while !Task.isCancelled {
            let element: QuerySnapshot?
            do {
                element = try await upstream.next()
            } catch {
                if Task.isCancelled { return }
                throw error
            }
            guard var snapshot = element else { return }
            if let from = resumingFrom {
                snapshot = CheckpointResume.rebase(
                    snapshot, on: from, query: query, sentResumeToken: resumePoint != nil
                ) { mismatch in onEvent?(.orderingMismatch(reason: mismatch)) }
                onEvent?(.resumedFromCheckpoint(key: "mirror", readTime: from.readTime))
                resumingFrom = nil
            }
            let batch = FeedSinkBatch(snapshot, shard: 0, generation: generation)
            try await CancellationShield.run { try await sink.apply(batch) }
        }
    }

    /// Where the mirror's Listen target resumes from the sink's point `checkpoint` at `now`: its resume token
    /// (``CheckpointResume/resumeToken(of:for:now:)``), else its read time when less than 30 minutes old (the
    /// window a resumed listener is billed only for its changes in; within the server's read-time window), else
    /// nowhere (from scratch).
    static func listenResumePoint(of checkpoint: FeedCheckpoint, now: Timestamp) -> ListenTarget.ResumePoint? {
        if let token = CheckpointResume.resumeToken(of: checkpoint, for: .listen, now: now) {
            return .resumeToken(token)
        }
        guard let readTime = checkpoint.readTime, now.duration(since: readTime) < CheckpointResume.listenResumeWindow
        else { return nil }
        return .readTime(readTime)
    }
}
