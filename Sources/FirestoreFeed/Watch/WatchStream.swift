import FirestoreREST
import Synchronization

/// One Listen stream of one client: a single gRPC call (`google.firestore.v1.Firestore/Listen`) at a time, carrying
/// one target per distinct query, shared by every listener of that query. The role of Firebase's `RemoteStore`
/// (targets and their listeners, here a ``SnapshotFanOut`` each) over its `WatchStream` (the call's life,
/// ``ListenConnectionMachine``) and its watch change aggregator (``WatchChangeAggregator``).
///
/// - Targets are added and removed on the open stream (`ListenRequest.add_target` / `remove_target`); listeners
///   on the same query (same parent, canonical `StructuredQuery` and limit kind) share one target. The stream
///   ends when its last listener leaves.
/// - Responses go through ``WatchChangeAggregator``; each consistent snapshot point publishes one
///   `QuerySnapshot` per target with changes, with the SDKs' `DocumentChange` rules.
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
/// Locks guard state only: requests leave from an outbox, in order, after the state lock is released; snapshots and
/// events are handed over with it released (``SnapshotFanOut``). The one teardown every way of ending goes through
/// is ``end(_:)`` then ``close(_:)``.
package final class WatchStream: Sendable {
    struct Target {
        let key: WatchTargetKey
        let query: Query
        let fanOut: SnapshotFanOut
        /// Each listener's ``CoalescingBuffer/demandCount`` at the last idle sweep.
        var demandMarks: [Int: Int] = [:]
        /// Whether a listener joined the target: its `add_target` is sent only then
        /// (``addListener(query:key:_:resuming:seed:)``).
        var joined = false
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
    let resume: @Sendable (Suspended, FeedListener) -> Void
    /// Moves a listener of a query (and its target's key) to polling, saying why (``WatchStreamPool``: it polls
    /// until the policy's ``PollingPolicy/listenRetryAfterFallback``, then tries Listen again).
    let fallBackTo: @Sendable (Query, WatchTargetKey, FeedListener, _ reason: String) -> Void
    /// Called once when the stream ends (last listener gone, permanent error or fallback); `reason` is the
    /// fallback reason, if any.
    let onEnd: @Sendable (WatchStream, _ fallbackReason: String?) -> Void
    let state: Mutex<State>
    /// Held while a snapshot point is published and while idle targets are suspended, so that a target is not
    /// suspended half-way through a publication.
    let delivery = Mutex(())
    /// Held while the outbox is sent, so requests leave in the order they were queued.
    private let sending = Mutex(())
    /// The stream's shutdown handler on its client (`ClientLifecycle.register(_:)`), until the stream ends.
    private let registration = Mutex<Int?>(nil)

    init(
        firestore: Firestore, channel: any ListenChannel, policy: PollingPolicy, clock: any Clock<Duration>,
        idleTimeout: Duration, resume: @escaping @Sendable (Suspended, FeedListener) -> Void,
        fallBackTo: @escaping @Sendable (Query, WatchTargetKey, FeedListener, String) -> Void,
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
        var initial = State(machine: ListenConnectionMachine(policy: policy))
        initial.aggregator.maxPendingDocuments = policy.listenMaxPendingDocuments
        state = Mutex(initial)
        if let id = firestore.lifecycle.register({ [weak self] in await self?.shutDown() }) {
            registration.withLock { $0 = id }
        } else {
            // The client is shut down: the stream takes no listener (its pool ends their feeds).
            state.withLock { $0.isFinished = true }
        }
    }

    /// Ends the stream for `Firestore.shutdown()`: every listener's stream ends with the client's shutdown error,
    /// the call is cancelled, the channel closed (its thread and connection gone), and the stream's tasks awaited.
    func shutDown() async {
        let tasks = state.withLock { state in [state.task, state.sweeper, state.watchdog].compactMap { $0 } }
        _ = endAll(throwing: firestore.lifecycle.shutDownError)
        onEnd(self, nil)
        await channel.close()
        for task in tasks { await task.value }
    }

    /// How many targets the stream carries.
    package var targetCount: Int { state.withLock { $0.targets.count } }

    /// The most snapshots any attached listener has held without taking them (0 or 1: ``CoalescingBuffer``).
    package var listenerBufferHighWater: Int {
        state.withLock { state in state.targets.values.map(\.fanOut.bufferHighWater).max() ?? 0 }
    }

    /// Adds a listener of `query`, sharing the query's target when there is one; it receives the target's current
    /// snapshot at once when there is one, every document as added.
    ///
    /// With `resuming`, the listener comes back to a target suspended while it was idle: a target of the same
    /// query on this stream is shared as usual, else the suspended one is added again from its view and resume
    /// token; either way the current snapshot is expressed relative to the last one the listener received.
    /// With `seed` (a feed resuming from a durable checkpoint), a new target starts from that view: its documents
    /// and resume token, sent with `add_target`, so the server sends only what changed since.
    ///
    /// A new target's `add_target` is sent only once the listener is on it, so that the server cannot answer
    /// before: a listener joining a target that already published gets the target's current snapshot, every
    /// document added, which from a seed is not the changes since the checkpoint. (The add was sent first: a
    /// server answering at once while the joining thread was preempted made a feed group's member deliver a shard
    /// it took over from a checkpoint as every document added, and a document removed since would have gone
    /// unnoticed.)
    /// - Returns: the listener's ID for ``removeListener(key:listener:)``, or `nil` when the stream has ended
    ///   (the caller then makes a new one).
    func addListener(
        query: Query, key: WatchTargetKey, _ listener: FeedListener, resuming: Suspended? = nil,
        seed: WatchTargetState? = nil
    ) -> Int? {
        var listener = listener
        if resuming != nil { listener.rebaseNext = true }
        while true {
            guard let fanOut = target(query: query, key: key, resuming: resuming, seed: seed) else { return nil }
            if let id = fanOut.add(listener) {
                joined(key: key, fanOut: fanOut)
                flushOutbox()
                return id
            }
            // The target's last listener left meanwhile: forget it (as its removal does) and make a new one.
            forgetFinished(key: key, fanOut: fanOut)
        }
    }

    /// Marks the target of `key` joined, when it is still `fanOut`'s, and queues its `add_target` when it was not
    /// joined before and the call is open (a call opened later adds it with the others: ``attach(_:)``).
    private func joined(key: WatchTargetKey, fanOut: SnapshotFanOut) {
        state.withLock { state in
            guard let targetID = state.byKey[key], let target = state.targets[targetID], target.fanOut === fanOut,
                !target.joined
            else { return }
            state.targets[targetID]?.joined = true
            if state.call != nil { Self.queueAdd(targetID, key: key, in: &state, firestore) }
        }
    }

    /// The fan-out of the target of `key`, made (and the stream's tasks started) when there is none; a new target
    /// is added to the call once a listener joined it (``joined(key:fanOut:)``).
    /// - Returns: `nil` when the stream has ended.
    private func target(
        query: Query, key: WatchTargetKey, resuming: Suspended?, seed: WatchTargetState?
    ) -> SnapshotFanOut? {
        let scope = try? ListenScope(query)
        return state.withLock { state -> SnapshotFanOut? in
            guard !state.isFinished else { return nil }
            if let existing = state.byKey[key], let target = state.targets[existing] { return target.fanOut }
            let targetID = state.nextTargetID
            state.nextTargetID += 1
            let fanOut = SnapshotFanOut(current: resuming?.lastSnapshot)
            state.byKey[key] = targetID
            state.targets[targetID] = Target(key: key, query: query, fanOut: fanOut)
            if let view = resuming?.view ?? seed {
                state.aggregator.restoreTarget(targetID, from: view, scope: scope)
            } else {
                state.aggregator.addTarget(
                    targetID, ordering: DocumentOrdering(query: query), limit: DocumentLimit(query), scope: scope)
            }
            if state.task == nil {
                state.task = Task { [self] in await run() }
                state.sweeper = Task { [self] in await sweepIdleTargets() }
                state.watchdog = Task { [self] in await watchLiveness() }
            }
            return fanOut
        }
    }

    /// Removes a listener; a target without listeners is removed from the stream, and the stream ends with its
    /// last target. The target is found by its key: a re-listen may have given it a new ID since.
    func removeListener(key: WatchTargetKey, listener listenerID: Int) {
        guard let fanOut = state.withLock({ state in state.byKey[key].flatMap { state.targets[$0]?.fanOut } }),
            fanOut.remove(listenerID)
        else { return }
        forgetFinished(key: key, fanOut: fanOut)
    }

    /// Takes the target of `key` off the stream when it is still `fanOut`'s (whose last listener left); ends the
    /// stream with its last target.
    private func forgetFinished(key: WatchTargetKey, fanOut: SnapshotFanOut) {
        let ended = state.withLock { state -> Ending? in
            guard let targetID = state.byKey[key], state.targets[targetID]?.fanOut === fanOut else { return nil }
            state.targets[targetID] = nil
            state.byKey[key] = nil
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

    // MARK: Ending

    /// What ending the stream leaves to do once the lock is released: the requests still queued for the open call
    /// (a `remove_target` for the last target, so the server stops at once), then the call's cancellation.
    struct Ending {
        let call: (any ListenCall)?
        let outbox: [ListenRequest]
    }

    /// Marks the stream finished and cancels its tasks; the open call and its outbox are left to ``close(_:)``.
    static func end(_ state: inout State) -> Ending {
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
    func close(_ ending: Ending) {
        if let id = registration.withLock({ id in
            defer { id = nil }
            return id
        }) {
            firestore.lifecycle.unregister(id)
        }
        guard let call = ending.call else { return }
        sending.withLock { _ in
            for request in ending.outbox { try? call.send(request) }
        }
        call.cancel()
    }

    /// Ends the stream: every target's fan-out finishes (with `error`, its listeners' streams end with it).
    /// - Returns: the targets with the listeners they had (to move elsewhere).
    func endAll(throwing error: FirestoreError? = nil) -> [(Target, [FeedListener])] {
        let (ending, targets) = state.withLock { state -> (Ending, [Target]) in
            let targets = Array(state.targets.values)
            state.targets = [:]
            state.byKey = [:]
            return (Self.end(&state), targets)
        }
        close(ending)
        // Out of the pool first, so that a listener that hears the error finds no stream for its client.
        return targets.map { ($0, $0.fanOut.finish(throwing: error)) }
    }

    // MARK: Requests

    /// Sends the queued requests in order. A request that cannot be sent (too large for the transport) ends the
    /// listeners of the target it would have added, with the error.
    func flushOutbox() {
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
        failed?.fanOut.finish(throwing: error)
    }

    /// Queues `add_target` for target `id`: from its resume token when it has one (else from the read time its view
    /// was seeded at, ``WatchTargetState/resumeReadTime``), with `expected_count` (the
    /// documents its view holds) so that the server can answer a mismatch with a bloom filter, as the Firebase SDKs
    /// do (`firestore.proto`, `Target.expected_count`). A query that cannot be encoded was refused before it got a
    /// target (`WatchTargetKey`), which holds the query's bytes: adding it again encodes nothing.
    static func queueAdd(_ id: Int32, key: WatchTargetKey, in state: inout State, _ firestore: Firestore) {
        let view = state.aggregator.targets[id]
        let resumePoint: ListenTarget.ResumePoint? =
            if let token = view?.resumeToken {
                .resumeToken(token)
            } else if let readTime = view?.resumeReadTime {
                .readTime(readTime)
            } else {
                nil
            }
        let target = ListenTarget(
            query: key.query, targetID: id, resumePoint: resumePoint,
            expectedCount: resumePoint == nil ? nil : Int32(clamping: view?.documents.count ?? 0))
        state.outbox.append(ListenRequest(adding: target, database: firestore.database.name))
    }

    /// Tells every listener of every target `event`.
    func emitToAll(_ event: FeedEvent) {
        let fanOuts = state.withLock { $0.targets.values.map(\.fanOut) }
        for fanOut in fanOuts { fanOut.emit(event) }
    }
}
