import FirestoreREST

extension QueryRepresentable {
    /// Mirrors this query into `sink` over the Listen stream, exactly once into the sink's store, until the calling
    /// task is cancelled (then the batch in hand is committed and the call returns normally).
    ///
    /// - Start: reads the sink's resume point for shard 0. With one, the Listen target resumes from the sink's
    ///   documents (``FeedSink/documents()``) and, when its read time is less than 30 minutes old, its resume token,
    ///   so the server sends only what changed since (as a checkpointed feed resumes); the first snapshot lists only
    ///   the changes from the sink's documents, and `onEvent` hears
    ///   ``FeedEvent/resumedFromCheckpoint(key:readTime:)`` with the key `mirror`. Without one, every document is
    ///   added.
    /// - Each snapshot becomes one ``FeedSinkBatch`` (shard 0, at the stored generation, 0 at first) that the sink
    ///   applies in one transaction with its resume point; the next snapshot is taken only after that commit. A
    ///   process killed at any moment resumes from the last commit, and what it receives again is a no-op there (the
    ///   version guard).
    /// - Parameters:
    ///   - sink: the store (``SQLiteMirror``).
    ///   - policy: the feed's policy (retries, backoff).
    ///   - onEvent: called with feed events.
    /// - Throws: ``FeedSinkStaleGeneration`` when the sink holds a higher generation for shard 0 (a feed group mirrors
    ///   into it): nothing more is delivered; `FirestoreError` `.failedPrecondition` when the sink's resume point is
    ///   another query's (nothing is applied); the sink's error (its batch not applied); the feed's permanent error.
    public func mirror(
        into sink: some FeedSink, policy: PollingPolicy = PollingPolicy(),
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) async throws {
        let query = self.query
        let identity = try QueryIdentity(query).description
        let stored = try await sink.resumePoint(shard: 0)
        if let held = stored?.query, held != identity {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "mirror of \(identity.prefix(200)): the sink holds the resume point of another query "
                    + "(\(held.prefix(200))); mirror this query into another table, or empty that one")
        }
        var checkpoint: FeedCheckpoint?
        if let stored {
            checkpoint = FeedCheckpoint(
                key: "mirror", query: identity, source: "listen", deltaField: nil,
                documents: try await sink.documents(), readTime: stored.readTime, deltaWatermark: nil,
                lastKeysScan: nil, resumeToken: stored.resumeToken, committedAt: .now(), generation: stored.generation)
        }
        let token = checkpoint.flatMap { CheckpointResume.resumeToken(of: $0, for: .listen, now: .now()) }
        let target = "mirror " + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let upstream = CheckpointUpstream.listen(
            query, policy: policy, pool: .shared, checkpointID: target, onEvent: onEvent)(checkpoint, token)
        defer { upstream.terminate() }
        let generation = stored?.generation ?? 0
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
                snapshot = CheckpointResume.rebase(snapshot, on: from, query: query, sentResumeToken: token != nil) {
                    mismatch in onEvent?(.orderingMismatch(reason: mismatch))
                }
                onEvent?(.resumedFromCheckpoint(key: "mirror", readTime: from.readTime))
                resumingFrom = nil
            }
            let batch = FeedSinkBatch(snapshot, shard: 0, generation: generation)
            try await CancellationShield.run { try await sink.apply(batch) }
        }
    }
}
