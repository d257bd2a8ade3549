import FirestoreREST

extension FeedGroupMember {
    /// Starts the Listen feed of `lease`'s shard from `checkpoint`: the shard's documents read at the checkpoint's
    /// read time are its starting view, so the first snapshot lists only what changed since (with the resume token,
    /// within 30 minutes of the checkpoint, the server sends only that; otherwise the whole shard, rebased on the
    /// view). With no checkpoint, or one too old to read at (Firestore reads at most an hour back without
    /// point-in-time recovery: ``FeedEvent/checkpointNotResumed(key:reason:)``), every document of the shard is
    /// `.added`. A failed read of the view is retried like a poll (``startingView(of:at:key:policy:onEvent:clock:)``).
    func startShard(_ lease: HeldLease, from checkpoint: ShardCheckpoint?, ranges: ShardRanges) {
        stopShard(lease.shard)
        guard !ranges.isEmpty(lease.shard) else { return }
        if let refusal = sinkRefusals[lease.shard], refusal.generation >= lease.generation {
            failForSink(refusal)
            return
        }
        let query = ranges.query(for: lease.shard, of: base)
        let policy = options.policy
        let onEvent = onEvent
        let key = "feed group \(options.root)/\(name) shard \(lease.shard) generation \(lease.generation)"
        let leaseDocument = (store as? FirestoreLeaseStore)?.shardDocument(lease.shard)
        storedCheckpoints[lease.shard] = checkpoint?.readTime
        let task = Task { [weak self] in
            do {
                var view: FeedCheckpoint?
                if let checkpoint {
                    view = try await Self.startingView(
                        of: query, at: checkpoint, key: key, policy: policy, onEvent: onEvent)
                }
                let token = view.flatMap { view in
                    CheckpointResume.resumeToken(of: view, for: .listen, now: .now())
                }
                let buffer = CoalescingBuffer(
                    coalesce: SnapshotCoalescing.query(query, onEvent: onEvent), onEvent: onEvent)
                var seed: (id: String, view: WatchTargetState)?
                if let view, let token {
                    seed = (key, CheckpointResume.listenView(from: view, query: query, resumeToken: token))
                }
                WatchStreamPool.shared.feed(buffer, of: query, policy: policy, onEvent: onEvent, checkpoint: seed)
                var first = true
                while let snapshot = try await buffer.next() {
                    if Task.isCancelled { break }
                    var delivered = snapshot
                    if first, let view, token == nil {
                        delivered = CheckpointResume.rebase(
                            snapshot, on: view, query: query, sentResumeToken: false,
                            mismatch: { onEvent?(.orderingMismatch(reason: $0)) })
                    }
                    let handed = delivered
                    let shardSnapshot = ShardSnapshot(
                        shard: lease.shard, generation: lease.generation, snapshot: handed,
                        resumedFrom: first ? view?.readTime : nil,
                        acknowledgement: { [weak self] in await self?.acknowledgeHanded(lease.shard, handed) },
                        fence: { [weak self] in await self?.fenceLeft(lease.shard, generation: lease.generation) },
                        wholeShard: first && view == nil ? ranges : nil, leaseDocument: leaseDocument,
                        storedCheckpoint: { [weak self] in await self?.storedCheckpoints[lease.shard] })
                    first = false
                    guard let self else { break }
                    await self.offer(shardSnapshot)
                }
                buffer.terminate()
            } catch {
                if !Task.isCancelled { await self?.fail(error) }
            }
        }
        shardTasks[lease.shard] = (lease.generation, task)
    }

    /// The time left before the fence of `shard` at `generation` falls, or `nil` when it fell: the member left, does
    /// not run the shard's feed at that generation any more (the lease was lost or released), or did not renew the
    /// lease in time.
    func fenceLeft(_ shard: Int, generation: Int64) -> Duration? {
        let at = now
        guard !ended, shardTasks[shard]?.generation == generation, machine?.deliverable(shard, at: at) == generation,
            let validUntil = machine?.held[shard]?.validUntil
        else { return nil }
        return validUntil - at
    }

    /// Acknowledges the snapshot of `shard` handed out with `snapshot`'s read time.
    func acknowledgeHanded(_ shard: Int, _ snapshot: QuerySnapshot) {
        guard let handed = outstanding[shard], handed.readTime == snapshot.readTime else { return }
        acknowledge(handed)
    }

    /// The shard's documents at `checkpoint`'s read time (``view(of:at:key:)``), read until it succeeds: a failure
    /// the feeds retry (``PollingPolicy/isPermanent(_:)`` false) is reported as
    /// ``FeedEvent/pollFailed(_:retryIn:)`` and retried after the policy's back-off, waited on `clock`.
    /// - Returns: the view, or `nil` when the server cannot read at the checkpoint's time any more
    ///   (`failed-precondition`, "The requested 'read_time' is too old"): the shard then starts over with every
    ///   document added, and ``FeedEvent/checkpointNotResumed(key:reason:)`` says so.
    /// - Throws: a permanent error (permission denied, an invalid query), or `CancellationError` when the task is
    ///   cancelled during a back-off.
    static func startingView(
        of query: Query, at checkpoint: ShardCheckpoint, key: String, policy: PollingPolicy,
        onEvent: (@Sendable (FeedEvent) -> Void)?, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> FeedCheckpoint? {
        var backoff = FeedBackoff(policy: policy)
        while true {
            do {
                return try await view(of: query, at: checkpoint, key: key)
            } catch {
                let failure = FirestoreError(wrapping: error)
                if failure.code == .failedPrecondition {
                    onEvent?(
                        .checkpointNotResumed(
                            key: key,
                            reason: "the shard's documents cannot be read at its checkpoint's time "
                                + "\(checkpoint.readTime): \(failure)"))
                    return nil
                }
                if PollingPolicy.isPermanent(failure) || failure.code == .cancelled { throw failure }
                let delay = backoff.failed(retryAfter: failure.retryAfter, random: Double.random(in: 0..<1))
                onEvent?(.pollFailed(failure, retryIn: delay))
                try await clock.sleep(for: delay)
            }
        }
    }

    /// The shard's documents at `checkpoint`'s read time, as a checkpoint a Listen target can resume from.
    static func view(of query: Query, at checkpoint: ShardCheckpoint, key: String) async throws -> FeedCheckpoint {
        let documents = try await query.getDocuments(readTime: checkpoint.readTime).documents.compactMap(\.document)
        return FeedCheckpoint(
            key: key, query: "", source: "listen", deltaField: nil, documents: documents,
            readTime: checkpoint.readTime, deltaWatermark: nil, lastKeysScan: nil, resumeToken: checkpoint.resumeToken,
            committedAt: .now(), generation: 0)
    }
}
