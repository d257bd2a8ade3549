import FirestoreREST

extension FeedGroupMember {
    /// Loads the group, then renews and takes leases every renewal interval until the member leaves.
    func run() async {
        do {
            try options.check()
            let document = base.firestore.collection(options.root).document(name)
            let definition = try await FeedGroupDefinition.load(document, query: base, shards: options.shards)
            self.definition = definition
            groupDocument = document
            store = FirestoreLeaseStore(
                group: document, shards: definition.ranges.shards, leaseDuration: options.leaseDuration,
                incarnation: definition.incarnation)
            machine = LeaseMachine(
                member: options.member, shards: definition.ranges.shards, leaseDuration: options.leaseDuration)
            watchFreeLeases(of: document)
        } catch {
            fail(error)
            return
        }
        var failures = 0
        while !ended, !Task.isCancelled {
            do throws(FirestoreError) {
                try await tick()
                failures = 0
                // A tenth of jitter, so members started together do not renew in step. A lease set free meanwhile
                // ends the pause at once (``watchFreeLeases(of:)``).
                await pause(for: options.renewInterval * Double.random(in: 0.9...1.1))
            } catch {
                // The feeds' retry table: a permanent error (a lease document of another shape, permission denied)
                // ends the member; a transient one is retried, the shards fenced meanwhile. So does the shutdown of
                // the client (`Firestore.shutdown()`).
                if base.firestore.isShutDown {
                    fail(base.firestore.lifecycle.shutDownError)
                    return
                }
                guard error.code.retryRule.feedRetries else {
                    fail(error)
                    return
                }
                failures += 1
                let delay = min(options.renewInterval, .milliseconds(250) * (1 << min(failures, 5)))
                onEvent?(.leaseRenewalFailed(error, retryIn: delay))
                enforceFences()
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// One renewal: reads the table, writes the plan with the acknowledged checkpoints, and starts and stops shard
    /// feeds by the outcome.
    func tick() async throws(FirestoreError) {
        guard let store, var machine, let definition, !stopped else { return }
        let startedAt = now
        let table = try await store.read()
        if let problem = groupProblem(table, definition: definition) {
            // Nothing more is delivered from here: every shard feed stops before the member fails and leaves.
            stopped = true
            for shard in Array(shardTasks.keys) { stopShard(shard) }
            fail(problem)
            return
        }
        machine.observe(table, at: now)
        var plan = machine.plan(table, at: now)
        // A shard given up for a rebalance whose snapshot is in the consumer's hands (a publish, a command under way)
        // is kept until it is acknowledged: released now, its next owner would deliver while that effect goes on, and
        // one document's effects could land out of order. Nothing more of a shard being released is handed out.
        let busy = plan.release.filter { outstanding[$0.shard] != nil }
        plan.release.removeAll { busy.contains($0) }
        plan.renew += busy
        releasing = Set((plan.release + busy).map(\.shard))
        handOutReady()
        for lease in plan.lost {
            let owner = table.shards.first { $0.shard == lease.shard }?.owner ?? ""
            lost(
                lease,
                reason: owner.isEmpty ? "its lease was released by another member" : "member \(owner) holds it now")
        }
        machine.forget(plan.lost)
        self.machine = machine
        let written = acknowledged
        let dead = machine.deadMembers(at: now, for: options.leaseDuration * 2)
        let outcome = try await store.write(plan, member: options.member, checkpoints: written, deadMembers: dead)
        lastHeartbeat = outcome.heartbeat ?? lastHeartbeat
        guard var current = self.machine, !ended else { return }
        let appliedAt = now
        let wasFenced = Set(outcome.renewed.map(\.shard).filter { current.deliverable($0, at: appliedAt) == nil })
        current.apply(outcome, startedAt: startedAt)
        self.machine = current
        for (shard, checkpoint) in written where acknowledged[shard] == checkpoint { acknowledged[shard] = nil }
        for lease in outcome.renewed {
            storedCheckpoints[lease.shard] = written[lease.shard]?.readTime ?? storedCheckpoints[lease.shard]
        }
        for lease in outcome.lost { lost(lease, reason: "another member took its lease before the renewal") }
        for lease in outcome.released {
            stopShard(lease.shard)
            onEvent?(.leaseReleased(shard: lease.shard, generation: lease.generation))
        }
        let leases = Dictionary(table.shards.map { ($0.shard, $0) }, uniquingKeysWith: { first, _ in first })
        for lease in outcome.acquired {
            let previous = leases[lease.shard]
            if let owner = previous?.owner, !owner.isEmpty {
                onEvent?(.leaseStolen(shard: lease.shard, generation: lease.generation, from: owner))
            } else {
                onEvent?(.leaseAcquired(shard: lease.shard, generation: lease.generation))
            }
            // A checkpoint written under another incarnation of the group is of other split points.
            let sameGroup = previous?.incarnation == nil || previous?.incarnation == definition.incarnation
            startShard(lease, from: sameGroup ? previous?.checkpoint : nil, ranges: definition.ranges)
        }
        for lease in outcome.renewed where shardTasks[lease.shard] == nil {
            // A renewal whose own length ran out before its answer came (the member was paused, or the answer was
            // that slow) tells nothing of now: another member may hold the lease at a higher generation already, and
            // a sink that refused this generation is right. The next renewal reads the lease and tells.
            guard current.deliverable(lease.shard, at: now) == lease.generation else { continue }
            // Renewed after its fence fell (its feed was stopped): deliver again from the checkpoint just written
            // or, when none was pending, the stored one.
            if wasFenced.contains(lease.shard), let fence = current.held[lease.shard]?.validUntil {
                let late = appliedAt - (fence - options.leaseDuration + current.safetyMargin)
                onEvent?(.leaseRenewedLate(shard: lease.shard, generation: lease.generation, late: late))
            }
            startShard(lease, from: written[lease.shard] ?? leases[lease.shard]?.checkpoint, ranges: definition.ranges)
        }
        enforceFences()
    }

    /// Why the member must stop, from what a renewal read: the group's document was deleted, created again or
    /// changed (members must never deliver under two sets of split points, nor two groups at once), or another live
    /// process writes this member's record (two processes with one member ID would deliver the same shards at the
    /// same generation). `nil` when all is well.
    func groupProblem(_ table: LeaseTable, definition: FeedGroupDefinition) -> FirestoreError? {
        let path = groupDocument?.path ?? "\(options.root)/\(name)"
        var seen: FeedGroupDefinition?
        switch table.group {
        case .notRead: break
        case .missing: seen = nil
        case .present(let definition): seen = definition
        }
        if table.group != .notRead, let groupDocument, let reason = definition.mismatch(seen, document: groupDocument) {
            return FirestoreError(
                code: .aborted,
                message: reason + "; this member stopped delivering at once, so that nothing is delivered under two "
                    + "sets of split points. Start the members again: they join the group as it is now")
        }
        // The newcomer stops: the process that holds no lease. The other one (holding the leases under this ID)
        // goes on.
        if machine?.held.isEmpty == true, let lastHeartbeat,
            let record = table.members.first(where: { $0.id == options.member }), record.heartbeat != lastHeartbeat
        {
            return FirestoreError(
                code: .alreadyExists,
                message: "member \(options.member) of feed group \(path) is in use by another live process (its "
                    + "record's heartbeat moved from \(lastHeartbeat) to \(record.heartbeat) between this member's "
                    + "renewals): give each process its own member ID (watch --member, FeedGroupOptions.member)")
        }
        return nil
    }

    /// Stops delivering `lease`'s shard for good.
    func lost(_ lease: HeldLease, reason: String) {
        guard shardTasks[lease.shard] != nil || machine?.held[lease.shard] != nil else { return }
        stopShard(lease.shard)
        acknowledged[lease.shard] = nil
        onEvent?(.leaseLost(shard: lease.shard, generation: lease.generation, reason: reason))
    }

    /// Stops the feed of every shard whose fence fell (the lease stays held, and is delivered again if a late
    /// renewal succeeds).
    func enforceFences() {
        guard let machine else { return }
        for (shard, running) in shardTasks where machine.deliverable(shard, at: now) != running.generation {
            fenced(shard)
        }
    }

    /// Waits `duration`, or less when ``wake()`` comes first (or came since the last pause), or the task is
    /// cancelled.
    func pause(for duration: Duration) async {
        if wakeRequested {
            wakeRequested = false
            return
        }
        pauses += 1
        let id = pauses
        let timer = Task { [weak self] in
            try? await Task.sleep(for: duration)
            await self?.endPause(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled {
                    continuation.resume()
                } else {
                    pauseWaiter = (id, continuation)
                }
            }
        } onCancel: {
            Task { await self.endPause(id) }
        }
        timer.cancel()
    }

    /// Ends pause `id` if it is still under way.
    func endPause(_ id: Int) {
        guard let waiter = pauseWaiter, waiter.id == id else { return }
        pauseWaiter = nil
        waiter.continuation.resume()
    }

    /// Renews now: ends the pause under way, or the next one at once.
    func wake() {
        guard !ended else { return }
        if let waiter = pauseWaiter {
            endPause(waiter.id)
        } else {
            wakeRequested = true
        }
    }

    /// Listens to the group's free leases (`owner == ""`, so a lease renewed or taken costs no read) and renews at
    /// once when one is set free: a member that left released its leases (and deleted its record), or one over its
    /// share released one. The waiting members take them within a Listen round trip and a commit instead of at
    /// their next renewal. Renewing every ``FeedGroupOptions/renewInterval`` stays the rule (an expired lease
    /// changes nothing to listen to); a client whose Listen stream falls back to polling stops listening here, so
    /// that no polls are billed for it.
    func watchFreeLeases(of group: DocumentReference) {
        let free = group.collection("shards").whereField("owner", isEqualTo: "")
        let policy = options.policy
        freeLeaseWatch = Task { [weak self] in
            let member = self
            let feed = free.snapshots(source: .listen, policy: policy) { [weak member] event in
                if case .fellBackToPolling = event { Task { await member?.stopWatchingFreeLeases() } }
            }
            var first = true
            do {
                for try await snapshot in feed {
                    if !first, snapshot.documentChanges.contains(where: { $0.type == .added }) { await self?.wake() }
                    first = false
                }
            } catch {
                // Renewals go on every interval: listening only makes handovers faster.
            }
        }
    }

    func stopWatchingFreeLeases() {
        freeLeaseWatch?.cancel()
        freeLeaseWatch = nil
    }

    /// Stops as a crash would: the loop and the shard feeds end, nothing is written, the leases stay until they
    /// expire.
    func abandon() {
        guard !ended else { return }
        ended = true
        stopWatchingFreeLeases()
        loop?.cancel()
        for shard in Array(shardTasks.keys) { stopShard(shard) }
        consumer?.resume(returning: nil)
        consumer = nil
    }

    /// Leaves the group: stops every shard feed, writes the acknowledged checkpoints and releases every lease,
    /// then ends the consumer's stream. Idempotent, and every caller returns only once the leases are released: a
    /// second caller (the stream's end and an explicit `leave()` both call it) awaits the first one's writes instead
    /// of returning while they are under way, which let a process exit with its leases still held.
    func leave() async {
        if let leaving {
            await leaving.value
            return
        }
        let task = Task { await releaseEverything() }
        leaving = task
        await task.value
    }

    /// What ``leave()`` does, once. A failed release is reported per lease
    /// (``FeedEvent/leaseLost(shard:generation:reason:)``): the next member takes the lease when it expires.
    private func releaseEverything() async {
        guard !ended else { return }
        ended = true
        stopWatchingFreeLeases()
        let renewals = loop
        renewals?.cancel()
        for shard in Array(shardTasks.keys) { stopShard(shard) }
        // The consumer's stream ends only once the leases are released (below): a program whose main loop ends with
        // the stream (SIGTERM calling `leave()`, then the program's end) would otherwise exit with the release in
        // flight and leave the leases held for a lease length.
        defer {
            if let continuation = consumer {
                consumer = nil
                continuation.resume(returning: nil)
            }
        }
        // A renewal under way ends first (its commit applied or refused): the release would otherwise race it,
        // be refused by its preconditions and read again.
        await renewals?.value
        guard let store, var machine else { return }
        var plan = LeasePlan()
        plan.release = machine.heldLeases
        do {
            let outcome = try await store.write(
                plan, member: options.member, checkpoints: acknowledged, deadMembers: [], leaving: true)
            machine.apply(outcome, startedAt: now)
            for lease in outcome.released {
                onEvent?(.leaseReleased(shard: lease.shard, generation: lease.generation))
            }
        } catch {
            for lease in plan.release {
                onEvent?(
                    .leaseLost(
                        shard: lease.shard, generation: lease.generation,
                        reason: "not released on leaving (\(error)); the next member takes it when it expires"))
            }
        }
        self.machine = machine
    }
}
