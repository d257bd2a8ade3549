import FirestoreREST
import Synchronization

/// A change feed with a durable checkpoint: the consumer's end of `query.snapshots(..., checkpoint:key:)`, in front
/// of an ordinary feed (the upstream: a poller or a Listen target seeded from the checkpoint).
///
/// - Start (the first `next()`): takes the key (``CheckpointKeyLock``), loads its checkpoint, and starts the
///   upstream from it: a poller with the stored documents, `readTime` and delta watermark, or a Listen target with
///   the stored documents and, within 30 minutes, the resume token (``CheckpointResume``).
/// - The first snapshot after a restart carries only the changes from the stored documents to the current result
///   (the same `DocumentChange` rules, so indexes refer to the stored list), announced by
///   ``FeedEvent/resumedFromCheckpoint(key:readTime:)``; it is delivered even when nothing changed.
/// - At least once: a snapshot is written (its changes, in one transaction) when the consumer asks for the next
///   one, or calls ``FeedCheckpointStore/acknowledge(key:)``; never before. A process that dies while handling a
///   snapshot gets its changes again after the restart. What is written is exactly what this consumer received
///   (a snapshot folded from several by the upstream's ``CoalescingBuffer`` is written as received), so the
///   stored documents always equal the last snapshot handed over and acknowledged.
/// - A failed write ends the feed with its error (nothing later is written on top of it). So does a snapshot whose
///   changes do not apply to the stored documents (``CheckpointChangeCheck``: `.internal`, naming its changes and
///   documents), which is not written.
/// - The key is released when the feed ends (the consumer leaves, the stream is dropped, or an error), after the
///   writes queued before.
final class CheckpointedFeed: Sendable {
    /// Starts the upstream feed for this query from `checkpoint` (`nil`: from nothing), sending `resumeToken` when
    /// it is a Listen feed.
    typealias Upstream =
        @Sendable (_ checkpoint: FeedCheckpoint?, _ resumeToken: [UInt8]?) -> CoalescingBuffer<
            QuerySnapshot
        >

    private enum Phase {
        case new
        case running
        case ended
    }

    private struct State {
        var phase = Phase.new
        var lock: CheckpointKeyLock?
        var upstream: CoalescingBuffer<QuerySnapshot>?
        /// The checkpoint loaded at the start, until the first snapshot is rebased on it.
        var stored: FeedCheckpoint?
        var sentResumeToken = false
        /// The query's identity (``QueryIdentity``), written with every snapshot.
        var identity = ""
        /// Handed to the consumer and not written yet.
        var delivered: QuerySnapshot?
        var deliveries = 0
        /// The names the store holds for the key, which the next snapshot's changes must apply to.
        var check = CheckpointChangeCheck(documents: [])
    }

    let store: FeedCheckpointStore
    let key: String
    let query: Query
    let source: FeedSource
    let onEvent: (@Sendable (FeedEvent) -> Void)?
    let upstream: Upstream
    /// The wall clock the 30-minute Listen resume rule is checked against.
    let now: @Sendable () -> Timestamp
    private let state = Mutex(State())
    private let chain = CheckpointChain()

    init(
        store: FeedCheckpointStore, key: String, query: Query, source: FeedSource,
        onEvent: (@Sendable (FeedEvent) -> Void)?, now: @escaping @Sendable () -> Timestamp = { .now() },
        upstream: @escaping Upstream
    ) {
        self.store = store
        self.key = key
        self.query = query
        self.source = source
        self.onEvent = onEvent
        self.now = now
        self.upstream = upstream
    }

    /// The consumer's stream: the feed ends (releasing the key) when the stream and its iterators are dropped.
    func makeStream() -> AsyncThrowingStream<QuerySnapshot, any Error> {
        // The feed ends (releasing its key) when the stream holding it is released.
        let lease = ReleaseAction { [self] in Task { await end() } }
        return AsyncThrowingStream(unfolding: {
            _ = lease
            return try await self.next()
        })
    }

    // MARK: The consumer's side

    /// The next snapshot, after writing the one delivered before it; `nil` at the end.
    func next() async throws -> QuerySnapshot? {
        do {
            try await writeDelivered()
            guard let upstream = try await start() else { return nil }
            guard let element = try await upstream.next() else {
                await end()
                return nil
            }
            return deliver(element)
        } catch {
            await end()
            throw error
        }
    }

    /// Writes the snapshot delivered last, if it is not written yet.
    func acknowledge() async throws(FirestoreError) {
        do {
            try await writeDelivered()
        } catch {
            await end()
            throw error
        }
    }

    private func writeDelivered() async throws(FirestoreError) {
        let taken = state.withLock { state -> Result<(QuerySnapshot, String), FirestoreError>? in
            guard let snapshot = state.delivered else { return nil }
            state.delivered = nil
            if let problem = state.check.apply(snapshot) {
                return .failure(
                    FirestoreError(
                        code: .internal,
                        message: "checkpoint store \(store.path): key \"\(key)\": the snapshot at "
                            + "\(snapshot.readTime?.rfc3339 ?? "no readTime") does not follow from the stored one: "
                            + "\(problem); not written (the store keeps the snapshot before it)"))
            }
            return .success((snapshot, state.identity))
        }
        if case .failure(let error) = taken { throw error }
        guard case .success(let (snapshot, identity)) = taken else {
            // A write taken by a concurrent acknowledgement may still be running: wait for it (the worker runs jobs
            // in order) and report its failure.
            _ = try await store.run { [chain] _ throws(FirestoreError) in try chain.check() }
            return
        }
        let commit = CheckpointCommit(
            key: key, query: identity, source: source.name,
            deltaField: source.deltaField, readTime: snapshot.readTime,
            deltaWatermark: snapshot.resumePoint?.deltaWatermark, lastKeysScan: snapshot.resumePoint?.lastKeysScan,
            resumeToken: snapshot.resumePoint?.resumeToken,
            changes: snapshot.documentChanges.compactMap { change in
                guard let document = change.document.document else { return nil }
                return change.type == .removed ? .remove(name: document.name) : .put(document)
            },
            documentCount: snapshot.count)
        try await store.write(commit, chain: chain)
        query.firestore.observability.count("firestore_checkpoint_writes_total")
    }

    /// Takes the key, loads the checkpoint and starts the upstream, the first time; the upstream, or `nil` once
    /// the feed ended.
    private func start() async throws(FirestoreError) -> CoalescingBuffer<QuerySnapshot>? {
        switch state.withLock({ $0.phase }) {
        case .ended: return nil
        case .running: return state.withLock { $0.upstream }
        case .new: break
        }
        let identity = try QueryIdentity(query).description
        let (lock, checkpoint) = try await store.open(key: key, for: self)
        if let checkpoint, checkpoint.query != identity {
            await store.close(key: key, lock: lock, for: self)
            throw FirestoreError(
                code: .failedPrecondition,
                message: "checkpoint store \(store.path): key \"\(key)\" holds the checkpoint of another query "
                    + "(\(checkpoint.query.prefix(200))); use another key for this one, or remove that checkpoint")
        }
        chain.start(at: checkpoint?.generation ?? 0)
        let token = checkpoint.flatMap { CheckpointResume.resumeToken(of: $0, for: source, now: now()) }
        let upstream = self.upstream(checkpoint, token)
        let started = state.withLock { state -> Bool in
            guard state.phase == .new else { return false }
            state.phase = .running
            state.lock = lock
            state.upstream = upstream
            state.stored = checkpoint
            state.sentResumeToken = token != nil
            state.identity = identity
            state.check = CheckpointChangeCheck(documents: checkpoint?.documents ?? [])
            return true
        }
        guard started else {
            upstream.terminate()
            await store.close(key: key, lock: lock, for: self)
            return nil
        }
        return upstream
    }

    /// Hands `element` to the consumer (the first one rebased on the stored checkpoint) and keeps it to write.
    private func deliver(_ element: QuerySnapshot) -> QuerySnapshot {
        let (stored, sentToken, isFirst) = state.withLock { state in
            defer { state.stored = nil }
            return (state.stored, state.sentResumeToken, state.deliveries == 0)
        }
        var snapshot = element
        if isFirst, let stored {
            snapshot = CheckpointResume.rebase(element, on: stored, query: query, sentResumeToken: sentToken) {
                [onEvent] mismatch in onEvent?(.orderingMismatch(reason: mismatch))
            }
            onEvent?(.resumedFromCheckpoint(key: key, readTime: stored.readTime))
        }
        state.withLock { state in
            state.delivered = snapshot
            state.deliveries += 1
        }
        return snapshot
    }

    /// Ends the upstream and releases the key (after the writes queued before); idempotent.
    func end() async {
        let ending = state.withLock { state -> (CheckpointKeyLock?, CoalescingBuffer<QuerySnapshot>?)? in
            guard state.phase != .ended else { return nil }
            state.phase = .ended
            defer {
                state.lock = nil
                state.upstream = nil
                state.delivered = nil
            }
            return (state.lock, state.upstream)
        }
        guard let (lock, upstream) = ending else { return }
        upstream?.terminate()
        if let lock { await store.close(key: key, lock: lock, for: self) }
    }
}

/// The generation a feed's next checkpoint write expects, and the failure that ended its writes. Read and changed
/// only inside the store's worker jobs, which run one at a time in order, so a write queued after another always
/// sees its outcome.
final class CheckpointChain: Sendable {
    private let state = Mutex<(generation: Int64, failure: FirestoreError?)>((0, nil))

    func start(at generation: Int64) { state.withLock { $0 = (generation, nil) } }

    /// The expected generation; throws the failure of an earlier write.
    func check() throws(FirestoreError) -> Int64 {
        let (generation, failure) = state.withLock { $0 }
        if let failure { throw failure }
        return generation
    }

    func advance(to generation: Int64) { state.withLock { $0.generation = generation } }

    func fail(_ error: FirestoreError) { state.withLock { $0.failure = error } }
}
