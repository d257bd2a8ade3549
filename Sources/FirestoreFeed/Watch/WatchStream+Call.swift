import FirestoreREST

extension WatchStream {
    /// Opens calls one after another until the stream ends: each end is decided by ``ListenConnectionMachine``.
    func run() async {
        var generator = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            let error: FirestoreError
            var authorization: String?
            do {
                let metadata = try await firestore.grpcMetadata()
                authorization = metadata.last { $0.matches("authorization") }?.value
                let call = try channel.makeListenCall(metadata: metadata)
                guard attach(call) else {
                    call.cancel()
                    return
                }
                flushOutbox()
                for try await response in call.responses {
                    try handle(response)
                }
                error = FirestoreError(
                    code: .unavailable, message: "the server ended the Listen call (grpc-status 0, OK)")
            } catch let failure as FirestoreError {
                error = Self.explained(failure, firestore)
            } catch let other {
                if Task.isCancelled { return }
                error = FirestoreError(wrapping: other)
            }
            if Task.isCancelled { return }
            let (ended, decision) = state.withLock {
                state -> ((any ListenCall)?, ListenConnectionMachine.EndDecision?) in
                guard !state.isFinished else { return (nil, nil) }
                let ended = state.call
                state.call = nil
                state.outbox = []
                state.probe = nil
                state.aggregator.streamDropped()
                let reported = state.deadReason ?? error
                state.deadReason = nil
                return (
                    ended,
                    state.machine.callEnded(reported, random: Double.random(in: 0..<1, using: &generator), now: .now())
                )
            }
            ended?.cancel()
            switch decision {
            case nil:
                return
            case .fallBack(let reason):
                let moved = endAll()
                onEnd(self, reason)
                for (target, listeners) in moved {
                    for listener in listeners { fallBackTo(target.query, target.key, listener, reason) }
                }
                return
            case .finish(let failure):
                finish(throwing: failure)
                return
            case .renewCredentials:
                // A fixed token cannot be renewed: then the refusal is final.
                guard let authorization, await firestore.credentials.invalidate(refusedHeader: authorization) else {
                    finish(throwing: error)
                    return
                }
            case .retry(let delay, let event):
                emitToAll(event)
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return
                }
            }
        }
    }

    /// Ends the stream and every listener with `error`.
    private func finish(throwing error: FirestoreError) {
        let listeners = state.withLock { $0.targets.values.flatMap(\.fanOut.listeners) }
        _ = endAll()
        onEnd(self, nil)
        for listener in listeners { listener.buffer.finish(throwing: error) }
    }

    /// Makes `call` the open call and queues the `add_target` of every target a listener joined (resuming from its
    /// token); one not joined yet is added when its listener joins (``addListener(query:key:_:resuming:seed:)``).
    /// - Returns: `false` when the stream has ended meanwhile.
    private func attach(_ call: any ListenCall) -> Bool {
        state.withLock { state in
            guard !state.isFinished else { return false }
            state.call = call
            state.outbox = []
            state.machine.callOpened()
            for (id, target) in state.targets.sorted(by: { $0.key < $1.key }) where target.joined {
                Self.queueAdd(id, key: target.key, in: &state, firestore)
            }
            return true
        }
    }

    /// Applies one response and publishes what it completes.
    private func handle(_ response: ListenResponse) throws(FirestoreError) {
        var failed: [(SnapshotFanOut, FirestoreError)] = []
        var published: [(SnapshotFanOut, QuerySnapshot)] = []
        var notices: [(SnapshotFanOut, FeedEvent)] = []
        var everyone: [FeedEvent] = []
        try delivery.withLock { (_: inout ()) throws(FirestoreError) -> Void in
            try state.withLock { (state: inout State) throws(FirestoreError) -> Void in
                if let answered = Self.probeAnswered(response, in: &state, firestore) { everyone.append(answered) }
                let points = state.aggregator.consistentPoints
                for event in try state.aggregator.apply(response) {
                    switch event {
                    case .snapshot(let id, let documents, let changes, let readTime):
                        guard let target = state.targets[id] else { continue }
                        let snapshot = FeedSnapshot.make(
                            query: target.query, documents: documents, changes: changes, readTime: readTime,
                            statistics: .listen(
                                documentsDelivered: changes.documentsDelivered(for: documents),
                                isFirstSnapshot: target.fanOut.current == nil),
                            resumePoint: FeedResumePoint(resumeToken: state.aggregator.targets[id]?.resumeToken))
                        published.append((target.fanOut, snapshot))
                    case .targetFailed(let id, let error):
                        guard let target = state.targets.removeValue(forKey: id) else { continue }
                        state.byKey[target.key] = nil
                        failed.append((target.fanOut, error))
                    case .orderingMismatch(let id, let reason):
                        guard let target = state.targets[id] else { continue }
                        notices.append((target.fanOut, .orderingMismatch(reason: reason)))
                    case .targetNeedsRelisten(let id, let reason):
                        guard let target = state.targets.removeValue(forKey: id), state.call != nil else { continue }
                        let newID = state.nextTargetID
                        state.nextTargetID += 1
                        state.targets[newID] = target
                        state.byKey[target.key] = newID
                        state.aggregator.moveTarget(from: id, to: newID)
                        state.outbox.append(ListenRequest(removing: id, database: firestore.database.name))
                        Self.queueAdd(newID, key: target.key, in: &state, firestore)
                        notices.append((target.fanOut, .listenTargetReset(reason: reason)))
                    }
                }
                let isPoint = state.aggregator.consistentPoints > points
                if let recovered = state.machine.received(isSnapshotPoint: isPoint) { everyone.append(recovered) }
            }
            // Before the snapshots: a listener that takes the snapshot finds the recovery already reported.
            for event in everyone { emitToAll(event) }
            for (fanOut, snapshot) in published { fanOut.publish(snapshot) }
        }
        flushOutbox()
        for (fanOut, event) in notices { fanOut.emit(event) }
        for (fanOut, error) in failed { fanOut.finish(throwing: error) }
        guard !failed.isEmpty else { return }
        let ended = state.withLock { state -> Ending? in
            guard state.targets.isEmpty, !state.isFinished else { return nil }
            return Self.end(&state)
        }
        if let ended {
            close(ended)
            onEnd(self, nil)
        }
    }

    /// Follows the liveness probe: its `CURRENT` answers it (the probe target is removed, and the answer reported);
    /// its `REMOVE` forgets it.
    /// - Returns: `listenProbed` when `response` answered the probe.
    private static func probeAnswered(_ response: ListenResponse, in state: inout State, _ firestore: Firestore)
        -> FeedEvent?
    {
        guard let probe = state.probe, case .targetChange(let change) = response,
            change.targetIDs.contains(probe.targetID)
        else { return nil }
        switch change.kind {
        case .current where !probe.answered:
            state.probe?.answered = true
            state.outbox.append(ListenRequest(removing: probe.targetID, database: firestore.database.name))
            return .listenProbed(answeredIn: .now - probe.sent, billedReads: BilledReads.listenProbe)
        case .remove:
            state.aggregator.forgetIgnoredTarget(probe.targetID)
            state.probe = nil
            return nil
        default:
            return nil
        }
    }

    /// `error` with a hint when the server ended the call with a bare `UNKNOWN` (no message): the Firestore emulator
    /// refuses a project ID it does not accept that way (its log says `Invalid app id`).
    static func explained(_ error: FirestoreError, _ firestore: Firestore) -> FirestoreError {
        guard error.code == .unknown, error.isServerStatus, error.message == "grpc-status 2" else { return error }
        var explained = error
        explained.message +=
            " (the server gave no reason; the Firestore emulator ends a Listen call so for a project ID it refuses, "
            + "and this one is \"\(firestore.database.projectID)\": project IDs are 6 to 30 lower-case letters, digits "
            + "and hyphens)"
        return explained
    }
}
