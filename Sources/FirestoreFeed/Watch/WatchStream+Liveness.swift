import FirestoreREST

extension WatchStream {
    /// Every ``ListenConnectionMachine/Liveness/tick``: probes a quiet call, ends a dead one (its connection takes no
    /// new calls, so the reopened stream gets a new one); ends with the stream.
    func watchLiveness() async {
        let tick = state.withLock { $0.machine.liveness.tick }
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: tick)
            } catch {
                return
            }
            let (dead, probed) = state.withLock { state -> ((any ListenCall)?, (any ListenCall)?) in
                guard !state.isFinished, let call = state.call else { return (nil, nil) }
                switch state.machine.tick() {
                case .nothing:
                    return (nil, nil)
                case .probe:
                    let id = state.nextProbeID
                    state.nextProbeID = id == Int32.max ? Self.firstProbeTargetID : id + 1
                    state.aggregator.ignoreTarget(id)
                    state.probe = Probe(targetID: id, sent: .now)
                    let target = ListenTarget(documents: [Self.probeDocument(firestore)], targetID: id)
                    state.outbox.append(ListenRequest(adding: target, database: firestore.database.name))
                    return (nil, call)
                case .dead(let error):
                    state.deadReason = error
                    return (call, nil)
                }
            }
            if let dead { dead.abandon() } else { flushOutbox() }
            // With the probe, a PING: a connection that carries nothing any more fails on its own within 10 s.
            probed?.checkConnection()
        }
    }

    /// The document a liveness probe listens to: one that never exists, so the answer is an empty, current target
    /// (billed at most one read, Firestore pricing: "Listening to query results").
    static func probeDocument(_ firestore: Firestore) -> String {
        firestore.database.name + "/documents/firestore-feed-liveness/probe"
    }
}
