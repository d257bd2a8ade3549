import FirestoreREST
import Synchronization

/// One Listen stream of one client: a single gRPC call (`google.firestore.v1.Firestore/Listen`) carrying one
/// target per distinct query, shared by every listener of that query.
///
/// - Targets are added and removed on the open stream (`ListenRequest.add_target` / `remove_target`); listeners
///   on the same query (same parent, canonical `StructuredQuery` and limit kind) share one target. The stream
///   ends when its last listener leaves.
/// - Responses go through ``WatchChangeAggregator``; each consistent snapshot point publishes one
///   ``QuerySnapshot`` per target with changes, with the SDKs' `DocumentChange` rules.
/// - A dropped stream is reopened with the policy's capped, jittered back-off; every target is re-added with the
///   resume token of its last applied snapshot, so the first snapshot after the resume lists only what changed
///   (`FeedEvent.listenFailed(_:retryIn:)`, then `.recovered`). A permanent error (``PollingPolicy/isPermanent(_:)``,
///   or `unauthenticated` twice in a row) ends every listener with it; a target the server removes ends its own
///   listeners.
/// - A listener that falls behind holds at most one snapshot it has not taken and gets the ones it missed as one
///   (``CoalescingBuffer``, `FeedEvent.snapshotsCoalesced(count:)`).
/// - A target whose listeners all hold a snapshot they have not taken and none of whom asked for one for a while
///   (between half `idleTimeout` and that: a consumer that stopped asking without dropping its iterator, as a
///   `break` in top-level code leaves it, or a very slow one) is suspended: removed from the stream (the stream
///   ends with its last target), so the server sends and bills nothing more for it. Its listeners keep their
///   place; the first one to ask again (after taking the snapshot it holds) resumes it from its resume token
///   (billed: only what changed meanwhile), with the changes from the last snapshot it received
///   (``WatchStreamPool``). A listener that is busy while nothing changes keeps its target: it costs nothing.
/// - When the first attempt shows the server cannot do gRPC over HTTP/2 (an HTTP/1.1-only proxy, h2 refused,
///   `unimplemented`), every listener is moved to polling in keys mode and told why
///   (`FeedEvent.fellBackToPolling(reason:)`).
package final class WatchStream: Sendable {
    struct Listener {
        let buffer: CoalescingBuffer<QuerySnapshot>
        let onEvent: (@Sendable (FeedEvent) -> Void)?
        /// How this listener polls if the stream falls back to polling.
        let fallbackPolicy: PollingPolicy
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

    struct State {
        var aggregator = WatchChangeAggregator()
        var targets: [Int32: Target] = [:]
        var byKey: [WatchTargetKey: Int32] = [:]
        var nextTargetID: Int32 = 1
        var nextListenerID = 0
        var call: (any ListenCall)?
        var task: Task<Void, Never>?
        var sweeper: Task<Void, Never>?
        var isFinished = false
    }

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
    private let state = Mutex(State())
    /// Held while snapshots are handed to listeners, outside ``state``'s lock: yielding resumes a consumer task
    /// under that task's own lock, and a consumer being cancelled holds its lock while its termination handler
    /// takes ``state``'s (``removeListener(key:listener:)``), so yielding under ``state``'s lock could deadlock.
    /// Taken before ``state``'s lock, it keeps each listener's snapshots in order.
    private let delivery = Mutex(())

    init(
        firestore: Firestore, channel: any ListenChannel, policy: PollingPolicy, clock: any Clock<Duration>,
        idleTimeout: Duration, resume: @escaping @Sendable (Suspended, Listener) -> Void,
        onEnd: @escaping @Sendable (WatchStream, String?) -> Void
    ) {
        self.firestore = firestore
        self.channel = channel
        self.policy = policy
        self.clock = clock
        self.idleTimeout = idleTimeout
        self.resume = resume
        self.onEnd = onEnd
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
        delivery.withLock { _ in
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
                    let view = resuming?.view ?? seed
                    if let view {
                        state.aggregator.restoreTarget(targetID, from: view)
                        initial = resuming?.lastSnapshot.map(Self.initial)
                    } else {
                        state.aggregator.addTarget(
                            targetID, ordering: DocumentOrdering(query: query), limit: Self.limit(query))
                    }
                    if let call = state.call {
                        Self.sendAdd(targetID, query: query, resumeToken: view?.resumeToken, on: call, firestore)
                    }
                }
                state.targets[targetID]?.listeners[listenerID] = listener
                if state.task == nil {
                    state.task = Task { [self] in await run() }
                    state.sweeper = Task { [self] in await sweepIdleTargets() }
                }
                return (listenerID, initial)
            }
            if let initial = joined?.initial { listener.buffer.yield(initial, rebased: resuming != nil) }
            return joined?.id
        }
    }

    /// Removes a listener; a target without listeners is removed from the stream, and the stream ends with its
    /// last target. The target is found by its key: a re-listen may have given it a new ID since.
    func removeListener(key: WatchTargetKey, listener listenerID: Int) {
        let ended = state.withLock { state -> Bool in
            guard let targetID = state.byKey[key],
                state.targets[targetID]?.listeners.removeValue(forKey: listenerID) != nil,
                state.targets[targetID]?.listeners.isEmpty == true
            else { return false }
            if let key = state.targets.removeValue(forKey: targetID)?.key { state.byKey[key] = nil }
            state.aggregator.removeTarget(targetID)
            if let call = state.call {
                try? call.send(ListenRequest(removing: targetID, database: firestore.database.name))
            }
            guard state.targets.isEmpty, !state.isFinished else { return false }
            state.isFinished = true
            state.task?.cancel()
            state.task = nil
            state.sweeper?.cancel()
            state.sweeper = nil
            state.call?.cancel()
            state.call = nil
            return true
        }
        if ended { onEnd(self, nil) }
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
                    if let call = state.call {
                        try? call.send(ListenRequest(removing: id, database: firestore.database.name))
                    }
                    let saved = Suspended(
                        key: target.key, query: target.query, view: view, lastSnapshot: target.lastSnapshot)
                    suspended.append((saved, Array(target.listeners.values)))
                }
                guard !suspended.isEmpty, state.targets.isEmpty else { return false }
                state.isFinished = true
                state.task?.cancel()
                state.task = nil
                state.sweeper = nil
                state.call?.cancel()
                state.call = nil
                return true
            }
        }
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

    // MARK: The stream

    private func run() async {
        var failures = 0
        var unauthenticatedInARow = 0
        var hasReceived = false
        var generator = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            let error: FirestoreError
            do {
                let metadata = try await firestore.grpcMetadata()
                let call = try channel.makeListenCall(metadata: metadata)
                let attached = state.withLock { state -> Bool in
                    guard !state.isFinished else { return false }
                    state.call = call
                    for (id, target) in state.targets.sorted(by: { $0.key < $1.key }) {
                        Self.sendAdd(
                            id, query: target.query, resumeToken: state.aggregator.targets[id]?.resumeToken, on: call,
                            firestore)
                    }
                    return true
                }
                guard attached else {
                    call.cancel()
                    return
                }
                for try await response in call.responses {
                    if !hasReceived || failures > 0 {
                        if failures > 0 { emitToAll(.recovered) }
                        hasReceived = true
                        failures = 0
                        unauthenticatedInARow = 0
                    }
                    try handle(response)
                }
                error = FirestoreError(code: .unavailable, message: "the Listen stream was closed by the server")
            } catch let failure as FirestoreError {
                error = failure
            } catch let other {
                if Task.isCancelled { return }
                error = FirestoreError(code: .unknown, message: "\(other)")
            }
            if Task.isCancelled { return }
            state.withLock { state in
                state.call?.cancel()
                state.call = nil
                state.aggregator.streamDropped()
            }
            if !hasReceived, Self.meansNoHTTP2(error) {
                fallBack(reason: error.description)
                return
            }
            let renews = error.code.retryRule.renewsCredentials
            if renews { unauthenticatedInARow += 1 }
            if renews ? unauthenticatedInARow > 1 : PollingPolicy.isPermanent(error) {
                finishAll(throwing: error)
                return
            }
            failures += 1
            let delay = policy.delay(afterFailures: failures, retryAfter: error.retryAfter)
            emitToAll(.listenFailed(error, retryIn: delay))
            do {
                try await clock.sleep(for: policy.jittered(delay, random: Double.random(in: 0..<1, using: &generator)))
            } catch {
                return
            }
        }
    }

    /// Applies one response and publishes what it completes.
    private func handle(_ response: ListenResponse) throws(FirestoreError) {
        var failed: [(Target, FirestoreError)] = []
        var published: [(QuerySnapshot, [Listener])] = []
        var mismatches: [(String, [Listener])] = []
        try delivery.withLock { (_: inout ()) throws(FirestoreError) -> Void in
            try state.withLock { (state: inout State) throws(FirestoreError) -> Void in
                for event in try state.aggregator.apply(response) {
                    switch event {
                    case .snapshot(let id, let documents, let changes, let readTime):
                        guard var target = state.targets[id] else { continue }
                        var snapshot = Self.snapshot(
                            query: target.query, documents: documents, changes: changes, readTime: readTime,
                            isFirst: target.lastSnapshot == nil)
                        snapshot.resumePoint = FeedResumePoint(resumeToken: state.aggregator.targets[id]?.resumeToken)
                        target.lastSnapshot = snapshot
                        state.targets[id] = target
                        published.append((snapshot, Array(target.listeners.values)))
                    case .targetFailed(let id, let error):
                        guard let target = state.targets.removeValue(forKey: id) else { continue }
                        state.byKey[target.key] = nil
                        failed.append((target, error))
                    case .orderingMismatch(let id, let reason):
                        guard let target = state.targets[id] else { continue }
                        mismatches.append((reason, Array(target.listeners.values)))
                    case .targetNeedsRelisten(let id):
                        guard let target = state.targets.removeValue(forKey: id), let call = state.call else {
                            continue
                        }
                        let newID = state.nextTargetID
                        state.nextTargetID += 1
                        state.targets[newID] = target
                        state.byKey[target.key] = newID
                        state.aggregator.moveTarget(from: id, to: newID)
                        try? call.send(ListenRequest(removing: id, database: firestore.database.name))
                        Self.sendAdd(newID, query: target.query, resumeToken: nil, on: call, firestore)
                    }
                }
            }
            for (snapshot, listeners) in published {
                for listener in listeners { listener.buffer.yield(snapshot) }
            }
        }
        for (reason, listeners) in mismatches {
            for listener in listeners { listener.onEvent?(.orderingMismatch(reason: reason)) }
        }
        for (target, error) in failed {
            for listener in target.listeners.values { listener.buffer.finish(throwing: error) }
        }
        let isEmpty = state.withLock { state -> Bool in
            guard state.targets.isEmpty, !failed.isEmpty, !state.isFinished else { return false }
            state.isFinished = true
            return true
        }
        if isEmpty {
            state.withLock { state in
                state.call?.cancel()
                state.call = nil
                state.task = nil
                state.sweeper?.cancel()
                state.sweeper = nil
            }
            onEnd(self, nil)
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
        let listeners = state.withLock { state -> [Listener] in
            state.isFinished = true
            state.task = nil
            state.sweeper?.cancel()
            state.sweeper = nil
            defer {
                state.targets = [:]
                state.byKey = [:]
            }
            return state.targets.values.flatMap { Array($0.listeners.values) }
        }
        // Out of the pool first, so that a listener that hears the error finds no stream for its client.
        onEnd(self, nil)
        for listener in listeners { listener.buffer.finish(throwing: error) }
    }

    /// Ends the stream and moves every listener to polling in keys mode.
    private func fallBack(reason: String) {
        let moved = state.withLock { state -> [(Query, Listener)] in
            state.isFinished = true
            state.task = nil
            state.sweeper?.cancel()
            state.sweeper = nil
            defer {
                state.targets = [:]
                state.byKey = [:]
            }
            return state.targets.values.flatMap { target in target.listeners.values.map { (target.query, $0) } }
        }
        onEnd(self, reason)
        for (query, listener) in moved {
            WatchFallback.poll(query, for: listener, reason: reason)
        }
    }

    // MARK: Helpers

    /// Whether `error`, on a stream that never answered, means gRPC over HTTP/2 cannot work with this server.
    static func meansNoHTTP2(_ error: FirestoreError) -> Bool {
        error.code == .unimplemented || (error.code == .unavailable && error.message.contains("HTTP/2"))
    }

    static func limit(_ query: Query) -> WatchTargetState.Limit? {
        guard let limit = query.limit else { return nil }
        return query.limitType == .last ? .last(limit) : .first(limit)
    }

    static func sendAdd(
        _ id: Int32, query: Query, resumeToken: [UInt8]?, on call: any ListenCall, _ firestore: Firestore
    ) {
        guard
            let target = try? ListenTarget(
                query: query, targetID: id, resumePoint: resumeToken.map { .resumeToken($0) })
        else { return }
        try? call.send(ListenRequest(adding: target, database: firestore.database.name))
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
