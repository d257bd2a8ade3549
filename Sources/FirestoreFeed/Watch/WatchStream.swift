import FirestoreREST
import Synchronization

/// One Listen stream of one client: a single gRPC call (`google.firestore.v1.Firestore/Listen`) at a time, carrying
/// one target per distinct query, shared by every listener of that query. The role of Firebase's `RemoteStore`
/// (targets and listeners) over its `WatchStream` (the call's life, ``ListenConnectionMachine``).
///
/// - Targets are added and removed on the open stream (`ListenRequest.add_target` / `remove_target`); listeners
///   on the same query (same parent, canonical `StructuredQuery` and limit kind) share one target. The stream
///   ends when its last listener leaves.
/// - Responses go through ``WatchChangeAggregator``; each consistent snapshot point publishes one
///   ``QuerySnapshot`` per target with changes, with the SDKs' `DocumentChange` rules.
/// - Every end of the call is noticed and decided by ``ListenConnectionMachine``: reopened after back-off
///   (`FeedEvent.listenFailed(_:retryIn:staleSince:)`, then `.listenRecovered(staleSince:)` at the next consistent
///   snapshot point), reopened at once with renewed credentials (`UNAUTHENTICATED` the first time), moved to
///   polling (`fellBackToPolling(reason:)`), or ended with a permanent error. Every target resumes from the resume
///   token of its last applied snapshot, with `expected_count` (the documents it holds) so the server can answer a
///   mismatch with a bloom filter; the first snapshot after a resume lists only what changed.
/// - A stream that receives nothing for a while is probed (a documents target for a document that never exists,
///   `FeedEvent.listenProbed(answeredIn:billedReads:)`); one that does not answer is dead: its call ends, its
///   connection takes no new calls, and the stream is reopened (``ListenConnectionMachine/Liveness``).
/// - A listener that falls behind holds at most one snapshot it has not taken and gets the ones it missed as one
///   (``CoalescingBuffer``, `FeedEvent.snapshotsCoalesced(count:)`).
/// - A target whose listeners all hold a snapshot they have not taken and none of whom asked for one for a while
///   is suspended: removed from the stream (the stream ends with its last target), so the server sends and bills
///   nothing more for it. The first listener to ask again resumes it from its resume token (``WatchStreamPool``).
///
/// Locks guard state only: requests are sent from an outbox in order after the state lock is released, and
/// snapshots are handed to listeners under ``delivery`` only.
package final class WatchStream: Sendable {
    struct Listener: Sendable {
        let buffer: CoalescingBuffer<QuerySnapshot>
        let onEvent: (@Sendable (FeedEvent) -> Void)?
        /// How this listener polls if the stream falls back to polling.
        let fallbackPolicy: PollingPolicy
        /// A listener back from polling (``WatchFallback``): its first Listen snapshot is expressed relative to the
        /// last one it received, and it hears `FeedEvent.listenRestored` with it.
        var returnsFromPolling = false
    }

    struct Target {
        let key: WatchTargetKey
        let query: Query
        var listeners: [Int: Listener] = [:]
        var lastSnapshot: QuerySnapshot?
        /// Each listener's ``CoalescingBuffer/demandCount`` at the last idle sweep.
        var demandMarks: [Int: Int] = [:]
    }

    /// A target taken off the stream while its listeners were idle, and what resuming it needs.
    package struct Suspended: Sendable {
        let key: WatchTargetKey
        let query: Query
        /// The aggregator's view of the target: its published list and resume token.
        let view: WatchTargetState
        let lastSnapshot: QuerySnapshot?
    }

    /// A liveness probe on the open call.
    struct Probe {
        let targetID: Int32
        let sent: ContinuousClock.Instant
        var answered = false
    }

    struct State {
        var aggregator = WatchChangeAggregator()
        var machine: ListenConnectionMachine
        var targets: [Int32: Target] = [:]
        var byKey: [WatchTargetKey: Int32] = [:]
        var nextTargetID: Int32 = 1
        var nextListenerID = 0
        var call: (any ListenCall)?
        /// Requests for the open call, sent in order by ``flushOutbox()``.
        var outbox: [ListenRequest] = []
        var probe: Probe?
        var nextProbeID = WatchStream.firstProbeTargetID
        /// Why the watchdog ended the open call, to report instead of its cancellation.
        var deadReason: FirestoreError?
        var task: Task<Void, Never>?
        var sweeper: Task<Void, Never>?
        var watchdog: Task<Void, Never>?
        var isFinished = false
    }

    /// Target IDs from here up are liveness probes; query targets count up from 1.
    static let firstProbeTargetID: Int32 = 1_000_000_000

    let firestore: Firestore
    /// Opens the stream's calls: a gRPC channel, or a recording or replaying one (the client's ``ListenTransport``).
    package let channel: any ListenChannel
    let policy: PollingPolicy
    let clock: any Clock<Duration>
    /// How long a target's listeners may go without asking before an idle sweep suspends it (after one or two).
    let idleTimeout: Duration
    /// Resumes a suspended target for one of its listeners that asks again (``WatchStreamPool``).
    let resume: @Sendable (Suspended, Listener) -> Void
    /// Called once when the stream ends (last listener gone, permanent error or fallback); `reason` is the
    /// fallback reason, if any.
    let onEnd: @Sendable (WatchStream, _ fallbackReason: String?) -> Void
    /// Moves a listener of a query (and its target's key) to polling, saying why (``WatchStreamPool``: it polls
    /// until the policy's ``PollingPolicy/listenRetryAfterFallback``, then tries Listen again).
    let fallBackTo: @Sendable (Query, WatchTargetKey, Listener, _ reason: String) -> Void
    private let state: Mutex<State>
    /// Held while snapshots are handed to listeners, outside ``state``'s lock: yielding resumes a consumer task
    /// under that task's own lock, and a consumer being cancelled holds its lock while its termination handler
    /// takes ``state``'s (``removeListener(key:listener:)``), so yielding under ``state``'s lock could deadlock.
    /// Taken before ``state``'s lock, it keeps each listener's snapshots in order.
    private let delivery = Mutex(())
    /// Held while the outbox is sent, so requests leave in the order they were queued.
    private let sending = Mutex(())

    init(
        firestore: Firestore, channel: any ListenChannel, policy: PollingPolicy, clock: any Clock<Duration>,
        idleTimeout: Duration, resume: @escaping @Sendable (Suspended, Listener) -> Void,
        fallBackTo: @escaping @Sendable (Query, WatchTargetKey, Listener, String) -> Void,
        onEnd: @escaping @Sendable (WatchStream, String?) -> Void
    ) {
        self.firestore = firestore
        self.channel = channel
        self.policy = policy
        self.clock = clock
        self.idleTimeout = idleTimeout
        self.resume = resume
        self.fallBackTo = fallBackTo
        self.onEnd = onEnd
        var initial = State(machine: ListenConnectionMachine(liveness: .init(timeout: policy.listenLivenessTimeout)))
        initial.aggregator.maxPendingDocuments = policy.listenMaxPendingDocuments
        state = Mutex(initial)
    }

    /// How many targets the stream carries.
    package var targetCount: Int { state.withLock { $0.targets.count } }

    /// The most snapshots any attached listener has held without taking them (0 or 1: ``CoalescingBuffer``).
    package var listenerBufferHighWater: Int {
        state.withLock { state in
            state.targets.values.flatMap { $0.listeners.values.map(\.buffer.highWater) }.max() ?? 0
        }
    }

    /// Adds a listener of `query`, sharing the query's target when there is one; it receives the target's current
    /// snapshot at once when there is one, every document as added.
    ///
    /// With `resuming`, the listener comes back to a target suspended while it was idle: a target of the same
    /// query on this stream is shared as usual, else the suspended one is added again from its view and resume
    /// token; either way the current snapshot is expressed relative to the last one the listener received
    /// (``CoalescingBuffer/yield(_:rebased:)``).
    /// With `seed` (a feed resuming from a durable checkpoint), a new target starts from that view: its documents
    /// and resume token, sent with `add_target`, so the server sends only what changed since.
    /// - Returns: the listener's ID for ``removeListener(key:listener:)``, or `nil` when the stream has ended
    ///   (the caller then makes a new one).
    func addListener(
        query: Query, key: WatchTargetKey, _ listener: Listener, resuming: Suspended? = nil,
        seed: WatchTargetState? = nil
    ) -> Int? {
        let scope = try? ListenScope(query)
        let joined = delivery.withLock { _ in
            let joined = state.withLock { state -> (id: Int, initial: QuerySnapshot?)? in
                guard !state.isFinished else { return nil }
                let listenerID = state.nextListenerID
                state.nextListenerID += 1
                let targetID: Int32
                var initial: QuerySnapshot?
                if let existing = state.byKey[key] {
                    targetID = existing
                    initial = state.targets[existing]?.lastSnapshot.map(Self.initial)
                } else {
                    targetID = state.nextTargetID
                    state.nextTargetID += 1
                    state.byKey[key] = targetID
                    state.targets[targetID] = Target(key: key, query: query, lastSnapshot: resuming?.lastSnapshot)
                    if let view = resuming?.view ?? seed {
                        state.aggregator.restoreTarget(targetID, from: view, scope: scope)
                        initial = resuming?.lastSnapshot.map(Self.initial)
                    } else {
                        state.aggregator.addTarget(
                            targetID, ordering: DocumentOrdering(query: query), limit: Self.limit(query), scope: scope)
                    }
                    if state.call != nil { Self.queueAdd(targetID, query: query, in: &state, firestore) }
                }
                var listener = listener
                // A target with a snapshot gives it at once: the return from polling is complete.
                if state.targets[targetID]?.lastSnapshot != nil { listener.returnsFromPolling = false }
                state.targets[targetID]?.listeners[listenerID] = listener
                if state.task == nil {
                    state.task = Task { [self] in await run() }
                    state.sweeper = Task { [self] in await sweepIdleTargets() }
                    state.watchdog = Task { [self] in await watchLiveness() }
                }
                return (listenerID, initial)
            }
            if let initial = joined?.initial {
                if listener.returnsFromPolling { listener.onEvent?(.listenRestored) }
                listener.buffer.yield(initial, rebased: resuming != nil || listener.returnsFromPolling)
            }
            return joined
        }
        flushOutbox()
        return joined?.id
    }

    /// Removes a listener; a target without listeners is removed from the stream, and the stream ends with its
    /// last target. The target is found by its key: a re-listen may have given it a new ID since.
    func removeListener(key: WatchTargetKey, listener listenerID: Int) {
        let ended = state.withLock { state -> Ending? in
            guard let targetID = state.byKey[key],
                state.targets[targetID]?.listeners.removeValue(forKey: listenerID) != nil,
                state.targets[targetID]?.listeners.isEmpty == true
            else { return nil }
            if let key = state.targets.removeValue(forKey: targetID)?.key { state.byKey[key] = nil }
            state.aggregator.removeTarget(targetID)
            if state.call != nil {
                state.outbox.append(ListenRequest(removing: targetID, database: firestore.database.name))
            }
            guard state.targets.isEmpty, !state.isFinished else { return nil }
            return Self.end(&state)
        }
        if let ended {
            close(ended)
            onEnd(self, nil)
        } else {
            flushOutbox()
        }
    }

    /// What ending the stream leaves to do once the lock is released: the requests still queued for the open call
    /// (a `remove_target` for the last target, so the server stops at once), then the call's cancellation.
    struct Ending {
        let call: (any ListenCall)?
        let outbox: [ListenRequest]
    }

    /// Marks the stream finished and cancels its tasks; the open call and its outbox are left to ``close(_:)``. The
    /// one teardown every way of ending goes through.
    private static func end(_ state: inout State) -> Ending {
        state.isFinished = true
        state.machine.finish()
        state.task?.cancel()
        state.task = nil
        state.sweeper?.cancel()
        state.sweeper = nil
        state.watchdog?.cancel()
        state.watchdog = nil
        defer {
            state.call = nil
            state.outbox = []
        }
        return Ending(call: state.call, outbox: state.outbox)
    }

    /// Sends what the ended stream still queued, in order after anything being sent, then cancels its call.
    private func close(_ ending: Ending) {
        guard let call = ending.call else { return }
        sending.withLock { _ in
            for request in ending.outbox { try? call.send(request) }
        }
        call.cancel()
    }

    /// Sends the queued requests in order. A request that cannot be sent (too large for the transport) ends the
    /// listeners of the target it would have added, with the error.
    private func flushOutbox() {
        sending.withLock { _ in
            while true {
                let batch = state.withLock { state -> (any ListenCall, [ListenRequest])? in
                    guard let call = state.call, !state.outbox.isEmpty else { return nil }
                    defer { state.outbox = [] }
                    return (call, state.outbox)
                }
                guard let (call, requests) = batch else { return }
                for request in requests {
                    do throws(FirestoreError) {
                        try call.send(request)
                    } catch {
                        failAdd(request, error)
                    }
                }
            }
        }
    }

    /// Ends the listeners of the target `request` added, when it could not be sent.
    private func failAdd(_ request: ListenRequest, _ error: FirestoreError) {
        guard case .add(let target) = request.targetChange else { return }
        let failed = state.withLock { state -> Target? in
            guard let removed = state.targets.removeValue(forKey: target.targetID) else { return nil }
            state.byKey[removed.key] = nil
            state.aggregator.removeTarget(target.targetID)
            return removed
        }
        for listener in failed?.listeners.values ?? [:].values { listener.buffer.finish(throwing: error) }
    }

    // MARK: Idle targets

    /// Every half ``idleTimeout``, suspends the targets whose listeners are all idle (so a target is suspended after
    /// between half the timeout and the timeout without demand); ends with the stream.
    private func sweepIdleTargets() async {
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: idleTimeout / 2)
            } catch {
                return
            }
            if suspendIdleTargets() { return }
        }
    }

    /// Suspends each target whose listeners all hold an untaken snapshot and none of whom is waiting or has
    /// started waiting since the last sweep: the target is removed from the stream (`remove_target`), and each
    /// listener resumes it when it asks again. The stream ends when no target is left.
    /// - Returns: whether the stream ended.
    private func suspendIdleTargets() -> Bool {
        var suspended: [(Suspended, [Listener])] = []
        var ending: Ending?
        let ended = delivery.withLock { _ in
            state.withLock { state -> Bool in
                guard !state.isFinished else { return true }
                for (id, target) in state.targets.sorted(by: { $0.key < $1.key }) {
                    var marks: [Int: Int] = [:]
                    var isIdle = !target.listeners.isEmpty
                    for (listenerID, listener) in target.listeners {
                        let demands = listener.buffer.demandCount
                        marks[listenerID] = demands
                        if listener.buffer.isWaiting || target.demandMarks[listenerID] != demands
                            || listener.buffer.bufferedCount == 0
                        {
                            isIdle = false
                        }
                    }
                    state.targets[id]?.demandMarks = marks
                    guard isIdle, let view = state.aggregator.targets[id] else { continue }
                    state.targets[id] = nil
                    state.byKey[target.key] = nil
                    state.aggregator.removeTarget(id)
                    if state.call != nil {
                        state.outbox.append(ListenRequest(removing: id, database: firestore.database.name))
                    }
                    let saved = Suspended(
                        key: target.key, query: target.query, view: view, lastSnapshot: target.lastSnapshot)
                    suspended.append((saved, Array(target.listeners.values)))
                }
                guard !suspended.isEmpty, state.targets.isEmpty else { return false }
                ending = Self.end(&state)
                return true
            }
        }
        if let ending { close(ending) } else if !ended { flushOutbox() }
        for (target, listeners) in suspended {
            for listener in listeners {
                let resumed = Atomic(false)
                listener.buffer.setOnTermination {}
                listener.buffer.setOnDemand { [resume] in
                    if !resumed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged { return }
                    resume(target, listener)
                }
            }
        }
        if ended && !suspended.isEmpty { onEnd(self, nil) }
        return ended
    }

    // MARK: Liveness

    /// Every ``ListenConnectionMachine/Liveness/tick``: probes a quiet call, ends a dead one (its connection takes no
    /// new calls, so the reopened stream gets a new one); ends with the stream.
    private func watchLiveness() async {
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

    // MARK: The stream

    private func run() async {
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
                error = FirestoreError(code: .unknown, message: "\(other)")
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
                    state.machine.callEnded(
                        reported, delay: { policy.delay(afterFailures: $0, retryAfter: reported.retryAfter) },
                        jittered: { policy.jittered($0, random: Double.random(in: 0..<1, using: &generator)) },
                        now: .now())
                )
            }
            ended?.cancel()
            switch decision {
            case nil:
                return
            case .fallBack(let reason):
                fallBack(reason: reason)
                return
            case .finish(let failure):
                finishAll(throwing: failure)
                return
            case .renewCredentials:
                // A fixed token cannot be renewed: then the refusal is final.
                guard let authorization, await firestore.credentials.invalidate(refusedHeader: authorization) else {
                    finishAll(throwing: error)
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

    /// Makes `call` the open call and queues every target's `add_target` (resuming from its token).
    /// - Returns: `false` when the stream has ended meanwhile.
    private func attach(_ call: any ListenCall) -> Bool {
        state.withLock { state in
            guard !state.isFinished else { return false }
            state.call = call
            state.outbox = []
            state.machine.callOpened()
            for (id, target) in state.targets.sorted(by: { $0.key < $1.key }) {
                Self.queueAdd(id, query: target.query, in: &state, firestore)
            }
            return true
        }
    }

    /// Applies one response and publishes what it completes.
    private func handle(_ response: ListenResponse) throws(FirestoreError) {
        var failed: [(Target, FirestoreError)] = []
        var published: [(QuerySnapshot, [Listener])] = []
        var notices: [(FeedEvent, [Listener])] = []
        var everyone: [FeedEvent] = []
        try delivery.withLock { (_: inout ()) throws(FirestoreError) -> Void in
            try state.withLock { (state: inout State) throws(FirestoreError) -> Void in
                if let answered = Self.probeAnswered(response, in: &state, firestore) { everyone.append(answered) }
                let points = state.aggregator.consistentPoints
                for event in try state.aggregator.apply(response) {
                    switch event {
                    case .snapshot(let id, let documents, let changes, let readTime):
                        guard var target = state.targets[id] else { continue }
                        var snapshot = Self.snapshot(
                            query: target.query, documents: documents, changes: changes, readTime: readTime,
                            isFirst: target.lastSnapshot == nil)
                        snapshot.resumePoint = FeedResumePoint(resumeToken: state.aggregator.targets[id]?.resumeToken)
                        target.lastSnapshot = snapshot
                        let listeners = Array(target.listeners.values)
                        for (listenerID, listener) in target.listeners where listener.returnsFromPolling {
                            target.listeners[listenerID]?.returnsFromPolling = false
                        }
                        state.targets[id] = target
                        published.append((snapshot, listeners))
                    case .targetFailed(let id, let error):
                        guard let target = state.targets.removeValue(forKey: id) else { continue }
                        state.byKey[target.key] = nil
                        failed.append((target, error))
                    case .orderingMismatch(let id, let reason):
                        guard let target = state.targets[id] else { continue }
                        notices.append((.orderingMismatch(reason: reason), Array(target.listeners.values)))
                    case .targetNeedsRelisten(let id, let reason):
                        guard let target = state.targets.removeValue(forKey: id), state.call != nil else { continue }
                        let newID = state.nextTargetID
                        state.nextTargetID += 1
                        state.targets[newID] = target
                        state.byKey[target.key] = newID
                        state.aggregator.moveTarget(from: id, to: newID)
                        state.outbox.append(ListenRequest(removing: id, database: firestore.database.name))
                        Self.queueAdd(newID, query: target.query, in: &state, firestore)
                        notices.append((.listenTargetReset(reason: reason), Array(target.listeners.values)))
                    }
                }
                let isPoint = state.aggregator.consistentPoints > points
                if let recovered = state.machine.received(isSnapshotPoint: isPoint) { everyone.append(recovered) }
            }
            // Before the snapshots: a listener that takes the snapshot finds the recovery already reported.
            for event in everyone { emitToAll(event) }
            for (snapshot, listeners) in published {
                for listener in listeners {
                    if listener.returnsFromPolling { listener.onEvent?(.listenRestored) }
                    listener.buffer.yield(snapshot, rebased: listener.returnsFromPolling)
                }
            }
        }
        flushOutbox()
        for (event, listeners) in notices {
            for listener in listeners { listener.onEvent?(event) }
        }
        for (target, error) in failed {
            for listener in target.listeners.values { listener.buffer.finish(throwing: error) }
        }
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

    private func emitToAll(_ event: FeedEvent) {
        let handlers = state.withLock { state in
            state.targets.values.flatMap { $0.listeners.values.compactMap(\.onEvent) }
        }
        for handler in handlers { handler(event) }
    }

    /// Ends the stream and every listener with `error`.
    private func finishAll(throwing error: FirestoreError) {
        let (ending, listeners) = state.withLock { state -> (Ending, [Listener]) in
            let listeners = state.targets.values.flatMap { Array($0.listeners.values) }
            state.targets = [:]
            state.byKey = [:]
            return (Self.end(&state), listeners)
        }
        close(ending)
        // Out of the pool first, so that a listener that hears the error finds no stream for its client.
        onEnd(self, nil)
        for listener in listeners { listener.buffer.finish(throwing: error) }
    }

    /// Ends the stream and moves every listener to polling in keys mode.
    private func fallBack(reason: String) {
        let (ending, moved) = state.withLock { state -> (Ending, [(Target, Listener)]) in
            let moved = state.targets.values.flatMap { target in target.listeners.values.map { (target, $0) } }
            state.targets = [:]
            state.byKey = [:]
            return (Self.end(&state), moved)
        }
        close(ending)
        onEnd(self, reason)
        for (target, listener) in moved {
            fallBackTo(target.query, target.key, listener, reason)
        }
    }

    // MARK: Helpers

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

    static func limit(_ query: Query) -> WatchTargetState.Limit? {
        guard let limit = query.limit else { return nil }
        return query.limitType == .last ? .last(limit) : .first(limit)
    }

    /// Queues `add_target` for target `id`: from its resume token when it has one, with `expected_count` (the
    /// documents its view holds) so that the server can answer a mismatch with a bloom filter, as the Firebase SDKs
    /// do (`firestore.proto`, `Target.expected_count`). A query that cannot be encoded was refused before it got a
    /// target (`WatchTargetKey`).
    private static func queueAdd(_ id: Int32, query: Query, in state: inout State, _ firestore: Firestore) {
        let view = state.aggregator.targets[id]
        let token = view?.resumeToken
        guard
            let target = try? ListenTarget(
                query: query, targetID: id, resumePoint: token.map { .resumeToken($0) },
                expectedCount: token == nil ? nil : Int32(clamping: view?.documents.count ?? 0))
        else { return }
        state.outbox.append(ListenRequest(adding: target, database: firestore.database.name))
    }

    /// The snapshot of one snapshot point, metered: billed one read per document delivered (added or modified; the
    /// first snapshot: its documents, at least one), Firestore pricing "Listening to query results".
    static func snapshot(
        query: Query, documents: [Document], changes: [ComputedChange], readTime: Timestamp?, isFirst: Bool
    ) -> QuerySnapshot {
        let firestore = query.firestore
        let delivered = changes.count { $0.type != .removed }
        return QuerySnapshot(
            query: query,
            documents: documents.map { DocumentSnapshot(firestore: firestore, document: $0) },
            documentChanges: changes.map { change in
                DocumentChange(
                    type: change.type, document: DocumentSnapshot(firestore: firestore, document: change.document),
                    oldIndex: change.oldIndex, newIndex: change.newIndex)
            },
            readTime: readTime,
            statistics: .listen(documentsDelivered: delivered, isFirstSnapshot: isFirst))
    }

    /// The snapshot a joining listener gets: the current documents, every one added.
    static func initial(_ snapshot: QuerySnapshot) -> QuerySnapshot {
        let changes = snapshot.documents.enumerated().map { position, document in
            DocumentChange(type: .added, document: document, oldIndex: nil, newIndex: position)
        }
        var initial = QuerySnapshot(
            query: snapshot.query, documents: snapshot.documents, documentChanges: changes,
            readTime: snapshot.readTime, statistics: snapshot.statistics)
        initial.resumePoint = snapshot.resumePoint
        return initial
    }
}
