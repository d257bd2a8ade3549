import FirestoreREST

extension FeedGroupMember {
    /// Starts the Listen feed of `lease`'s shard from `checkpoint`: the shard's documents read at the checkpoint's
    /// read time are its starting view, so the first snapshot lists only what changed since (with the resume token,
    /// within 30 minutes of the checkpoint, the server sends only that; otherwise the whole shard, rebased on the
    /// view). With no checkpoint, or one too old to read at (Firestore reads at most an hour back without
    /// point-in-time recovery), every document of the shard is `.added`.
    func startShard(_ lease: HeldLease, from checkpoint: ShardCheckpoint?, ranges: ShardRanges) {
        stopShard(lease.shard)
        guard !ranges.isEmpty(lease.shard) else { return }
        let query = ranges.query(for: lease.shard, of: base)
        let policy = options.policy
        let onEvent = onEvent
        let key = "feed group \(options.root)/\(name) shard \(lease.shard) generation \(lease.generation)"
        let task = Task { [weak self] in
            do {
                var view: FeedCheckpoint?
                if let checkpoint {
                    view = try? await Self.view(of: query, at: checkpoint, key: key)
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
                        acknowledgement: { [weak self] in await self?.acknowledgeHanded(lease.shard, handed) })
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

    /// Acknowledges the snapshot of `shard` handed out with `snapshot`'s read time.
    func acknowledgeHanded(_ shard: Int, _ snapshot: QuerySnapshot) {
        guard let handed = outstanding[shard], handed.readTime == snapshot.readTime else { return }
        acknowledge(handed)
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
