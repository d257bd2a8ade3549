import FirestoreREST

/// One member of a feed group at run time: renews and takes leases (``LeaseMachine`` against a ``LeaseStore``),
/// runs one Listen feed per held shard, and hands their snapshots to one consumer, one unacknowledged snapshot per
/// shard at a time, never past the shard's fence.
actor FeedGroupMember {
    let base: Query
    let name: String
    let options: FeedGroupOptions
    let onEvent: (@Sendable (FeedEvent) -> Void)?
    let origin = ContinuousClock.now

    var definition: FeedGroupDefinition?
    var store: (any LeaseStore)?
    var machine: LeaseMachine?
    /// The Listen feed of each shard delivering now.
    var shardTasks: [Int: (generation: Int64, task: Task<Void, Never>)] = [:]
    /// Snapshots offered by shard feeds and not handed out yet, in arrival order.
    var ready: [ShardSnapshot] = []
    /// Handed out and not acknowledged, by shard.
    var outstanding: [Int: ShardSnapshot] = [:]
    /// Shards this member is handing over (a rebalance): none of their snapshots is handed out from the renewal that
    /// planned the release on, so that no effect of the shard is under way when the next owner starts; a shard whose
    /// snapshot is out is released only once it is acknowledged (``tick()``).
    var releasing: Set<Int> = []
    /// The shard feeds waiting for their last snapshot to be acknowledged.
    var shardWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Acknowledged checkpoints not written yet.
    var acknowledged: [Int: ShardCheckpoint] = [:]
    /// The read time of each delivering shard's checkpoint as stored in its lease: the one its feed resumed from, then
    /// each one a renewal wrote.
    var storedCheckpoints: [Int: Timestamp] = [:]
    /// The consumer waiting for a snapshot.
    var consumer: CheckedContinuation<ShardSnapshot?, any Error>?
    /// The snapshot handed out last, acknowledged when the consumer asks for the next.
    var lastHanded: ShardSnapshot?
    var loop: Task<Void, Never>?
    var failure: (any Error)?
    var ended = false
    /// The one leave under way or done (``leave()``), which later callers await.
    var leaving: Task<Void, Never>?
    /// The pause between renewals under way (``pause(for:)``), which ``wake()`` ends early.
    var pauseWaiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    var pauses = 0
    /// A ``wake()`` that came while no pause was under way: the next pause returns at once.
    var wakeRequested = false
    /// The Listen feed of the group's free leases (``watchFreeLeases(of:)``).
    var freeLeaseWatch: Task<Void, Never>?
    /// The group's document.
    var groupDocument: DocumentReference?
    /// The heartbeat this member last wrote to its record: a record whose heartbeat moved otherwise was written by
    /// another process with the same member ID.
    var lastHeartbeat: Int64?
    /// Set once a renewal found the member must stop (``groupProblem(_:definition:)``): no renewal follows.
    var stopped = false
    /// The refusals of a sink this member mirrors into, by shard: a shard whose lease this member still holds at the
    /// refused generation is not delivered again (``refusedBySink(_:)``).
    var sinkRefusals: [Int: FeedSinkStaleGeneration] = [:]

    init(base: Query, name: String, options: FeedGroupOptions, onEvent: (@Sendable (FeedEvent) -> Void)?) {
        self.base = base
        self.name = name
        self.options = options
        self.onEvent = onEvent
    }

    /// The member's own monotonic time.
    var now: Duration { ContinuousClock.now - origin }

    // MARK: The consumer's side

    /// The next snapshot of any held shard, after acknowledging the one handed out before; `nil` once the member
    /// left.
    func next() async throws -> ShardSnapshot? {
        if let last = lastHanded {
            lastHanded = nil
            acknowledge(last)
        }
        if loop == nil, !ended { loop = Task { await self.run() } }
        while true {
            if let failure {
                self.failure = nil
                await leave()
                throw failure
            }
            if ended {
                // A leave under way: the stream ends once its checkpoints are written and its leases released.
                if let leaving { await leaving.value }
                return nil
            }
            if let index = ready.firstIndex(where: { isDeliverable($0) && !releasing.contains($0.shard) }) {
                let snapshot = ready.remove(at: index)
                outstanding[snapshot.shard] = snapshot
                lastHanded = snapshot
                return snapshot
            }
            // A shard whose fence fell: its feed stops (what it offered is dropped with it) and starts again from
            // the checkpoint if the lease is renewed late.
            for snapshot in ready where !isDeliverable(snapshot) { fenced(snapshot.shard) }
            let handed: ShardSnapshot? = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        consumer = continuation
                    }
                }
            } onCancel: {
                Task { await self.cancelConsumer() }
            }
            if let handed {
                outstanding[handed.shard] = handed
                lastHanded = handed
                return handed
            }
        }
    }

    private func cancelConsumer() {
        consumer?.resume(throwing: CancellationError())
        consumer = nil
    }

    /// Whether `snapshot` may be handed out now: its shard is held at its generation and its fence stands.
    func isDeliverable(_ snapshot: ShardSnapshot) -> Bool {
        machine?.deliverable(snapshot.shard, at: now) == snapshot.generation
    }

    /// Moves the shard's checkpoint to `snapshot` (written at the next renewal) and lets the shard's feed go on.
    func acknowledge(_ snapshot: ShardSnapshot) {
        guard outstanding[snapshot.shard]?.generation == snapshot.generation,
            outstanding[snapshot.shard]?.readTime == snapshot.readTime
        else { return }
        outstanding[snapshot.shard] = nil
        if lastHanded?.shard == snapshot.shard, lastHanded?.readTime == snapshot.readTime { lastHanded = nil }
        if let readTime = snapshot.readTime, machine?.held[snapshot.shard]?.generation == snapshot.generation {
            acknowledged[snapshot.shard] = ShardCheckpoint(
                readTime: readTime, resumeToken: snapshot.snapshot.resumePoint?.resumeToken)
        }
        shardWaiters.removeValue(forKey: snapshot.shard)?.resume()
    }

    // MARK: The shard feeds' side

    /// Hands `snapshot` to the consumer (or queues it) and returns once it was acknowledged or the shard stopped.
    func offer(_ snapshot: ShardSnapshot) async {
        guard !ended, shardTasks[snapshot.shard]?.generation == snapshot.generation else { return }
        guard isDeliverable(snapshot) else {
            // Never dropped while the feed goes on (its later snapshots would lack these changes): the feed stops,
            // and a late renewal starts it again from the checkpoint.
            fenced(snapshot.shard)
            return
        }
        if let consumer, !releasing.contains(snapshot.shard) {
            self.consumer = nil
            consumer.resume(returning: snapshot)
        } else {
            ready.append(snapshot)
        }
        await withCheckedContinuation { continuation in
            shardWaiters[snapshot.shard]?.resume()
            shardWaiters[snapshot.shard] = continuation
        }
    }

    /// Hands a waiting consumer the first snapshot held back while its shard was being released, when the release
    /// was called off (``releasing`` no longer holds the shard).
    func handOutReady() {
        guard let consumer, let index = ready.firstIndex(where: { isDeliverable($0) && !releasing.contains($0.shard) })
        else { return }
        self.consumer = nil
        consumer.resume(returning: ready.remove(at: index))
    }

    /// Ends the member with `error` (a shard feed's or the group's), after leaving.
    func fail(_ error: any Error) {
        guard !ended else { return }
        failure = error
        consumer?.resume(returning: nil)
        consumer = nil
    }

    /// Stops the feed of `shard`, dropping what it offered and not yet handed out.
    func stopShard(_ shard: Int) {
        shardTasks.removeValue(forKey: shard)?.task.cancel()
        ready.removeAll { $0.shard == shard }
        outstanding[shard] = nil
        shardWaiters.removeValue(forKey: shard)?.resume()
    }

    /// Stops the feed of `shard`, whose fence fell: the lease stays held, and a late renewal starts the feed again
    /// from the shard's checkpoint.
    func fenced(_ shard: Int) {
        guard let running = shardTasks[shard] else { return }
        stopShard(shard)
        onEvent?(
            .leaseLost(
                shard: shard, generation: running.generation,
                reason: "the lease could not be renewed within its length; delivery stopped at its fence"))
    }
}
