import FirestoreREST
import Synchronization

/// Polls one query for any number of listeners and turns consecutive results into `QuerySnapshot`s
/// carrying the `DocumentChange`s between them (``DocumentChangeComputation``).
///
/// - Exactly one poll is in flight: one task polls in a loop and sleeps between polls on the injected clock.
/// - A listener that joins gets the current snapshot at once, every document as added (as the SDKs do), then
///   every later snapshot; snapshots are published only when something changed. A listener that falls behind
///   holds at most one snapshot it has not taken and gets the ones it missed as one (``CoalescingBuffer``,
///   ``FeedEvent/snapshotsCoalesced(count:)``).
/// - Each snapshot's changes are checked against the server's order
///   (``DocumentChangeComputation/checkedChanges(from:to:ordering:)``); on a mismatch they are computed from the
///   server's order and listeners hear ``FeedEvent/orderingMismatch(reason:)``.
/// - A response whose `readTime` is not newer than the last applied one is dropped, so a stale answer can
///   never bring back a deleted document.
/// - A transient error keeps the last snapshot, is reported as ``FeedEvent/pollFailed(_:retryIn:)`` and
///   retried after the policy's back-off; a permanent error (``PollingPolicy/isPermanent(_:)``) ends every
///   listener's stream with it.
/// - Every poll, changed or not, is reported as ``FeedEvent/polled(_:)`` with its statistics (billed reads).
/// - What a poll builds on (documents, `readTime`, the delta watermark) is one ``PollState``.
/// - A poller whose polls take longer than its interval says so (``FeedEvent/intervalNotKept(interval:actual:)``,
///   ``PollPacing``).
/// - Polls are made on demand: the first at once, each later one when its delay has passed and a listener is
///   waiting for a snapshot (``PollDemand``). A consumer that stopped asking without dropping its iterator (a
///   `break` in top-level code) costs no request after its last snapshot.
/// - When the last listener leaves, polling stops and the in-flight request is cancelled.
/// - `Firestore.shutdown()` of the query's client ends it (``shutDown()``): its listeners' streams end with the
///   client's shutdown error.
final class QueryPoller: Sendable {
    struct State {
        /// The last applied result and what delta polling builds on (one value, for checkpoints).
        var poll = PollState()
        var statistics: PollStatistics?
        var hasSnapshot = false
        var task: Task<Void, Never>?
        var isFinished = false
        /// The poller's shutdown handler on its client (`ClientLifecycle.register(_:)`), while it polls.
        var registration: Int?
    }

    let query: Query
    let policy: PollingPolicy
    let clock: any Clock<Duration>
    let initialMode: PollMode
    let onEmpty: @Sendable (QueryPoller) -> Void
    private let state: Mutex<State>
    private let fanOut = SnapshotFanOut()
    private let demand = PollDemand()

    /// A poller of `query`; `resumingFrom` is the state a checkpointed feed resumes from (its first poll builds on
    /// those documents and that delta watermark, and its first snapshot carries the changes from them).
    init(
        query: Query, mode: PollMode, policy: PollingPolicy, clock: any Clock<Duration>,
        resumingFrom: PollState? = nil, onEmpty: @escaping @Sendable (QueryPoller) -> Void
    ) {
        self.state = Mutex(State(poll: resumingFrom ?? PollState()))
        self.query = query
        self.initialMode = mode
        self.policy = policy
        self.clock = clock
        self.onEmpty = onEmpty
    }

    /// How many listeners are attached.
    var listenerCount: Int { fanOut.count }

    /// The most snapshots any attached listener has held without taking them (0 or 1: ``CoalescingBuffer``).
    package var listenerBufferHighWater: Int { fanOut.bufferHighWater }

    /// Adds a listener; it receives the current snapshot at once when there is one. Starts polling with the
    /// first listener.
    /// - Returns: the listener's ID for ``removeListener(_:)``, or `nil` when this poller has already ended
    ///   (the caller then makes a new one).
    ///
    /// The listener is attached before the poll loop starts, so it hears the first poll's events (`polled`,
    /// `pollFailed`) as well as its snapshot.
    func addListener(_ buffer: CoalescingBuffer<QuerySnapshot>, onEvent: (@Sendable (FeedEvent) -> Void)?) -> Int? {
        guard !state.withLock({ $0.isFinished }),
            let id = fanOut.add(FeedListener(buffer: buffer, onEvent: onEvent, policy: policy))
        else { return nil }
        let lifecycle = query.firestore.lifecycle
        let registration = lifecycle.register { [weak self] in await self?.shutDown() }
        let started = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            if state.task == nil, registration != nil {
                state.task = Task { [self] in await run() }
                state.registration = registration
            }
            return true
        }
        if let registration, state.withLock({ $0.registration != registration }) {
            lifecycle.unregister(registration)
        }
        guard started else {
            // The poller ended while the listener joined: it leaves again and the caller makes a new poller.
            _ = fanOut.remove(id)
            return nil
        }
        buffer.setOnDemand { [demand] in demand.signal() }
        if registration == nil, state.withLock({ $0.task == nil }) {
            // The client was shut down while the listener joined: its feed ends with the client's error.
            finish(throwing: lifecycle.shutDownError)
        }
        return id
    }

    /// Ends the poller for `Firestore.shutdown()`: its listeners' streams end with the client's error, its poll
    /// loop is cancelled and awaited.
    func shutDown() async {
        let task = state.withLock { state -> Task<Void, Never>? in
            defer {
                state.isFinished = true
                state.task = nil
                state.registration = nil
            }
            return state.task
        }
        task?.cancel()
        fanOut.finish(throwing: query.firestore.lifecycle.shutDownError)
        onEmpty(self)
        await task?.value
    }

    /// Forgets the poller's shutdown handler (it ended by itself).
    private func unregister(_ registration: Int?) {
        if let registration { query.firestore.lifecycle.unregister(registration) }
    }

    /// Whether the poll loop is holding its next poll until a listener asks (for tests).
    var isAwaitingDemand: Bool { demand.isWaiting }

    /// Removes a listener; with the last one gone, polling stops and the in-flight request is cancelled.
    func removeListener(_ id: Int) {
        guard fanOut.remove(id) else { return }
        let ended = state.withLock { state -> (Bool, Int?) in
            guard !state.isFinished else { return (false, nil) }
            state.isFinished = true
            state.task?.cancel()
            state.task = nil
            defer { state.registration = nil }
            return (true, state.registration)
        }
        unregister(ended.1)
        if ended.0 { onEmpty(self) }
    }

    private func finish(throwing error: FirestoreError) {
        let registration = state.withLock { state -> Int? in
            state.isFinished = true
            state.task = nil
            defer { state.registration = nil }
            return state.registration
        }
        unregister(registration)
        fanOut.finish(throwing: error)
        onEmpty(self)
    }

    /// The poll loop: runs until cancelled or a permanent error.
    private func run() async {
        let ordering = DocumentOrdering(query: query)
        var mode = initialMode
        var backoff = FeedBackoff(policy: policy)
        var unchangedPolls = 0
        var pacing = PollPacing()
        var generator = SystemRandomNumberGenerator()
        do {
            _ = try query.structuredQuery()
        } catch {
            finish(throwing: error)
            return
        }
        while !Task.isCancelled {
            var delay: Duration
            do {
                let previous = state.withLock { $0.poll }
                let result: PollFetcher.Result
                do {
                    result = try await PollFetcher(query: query).fetch(mode: mode, previous: previous)
                } catch let error as FirestoreError
                    where mode == .keys && (error.code == .invalidArgument || error.code == .unimplemented)
                {
                    // The server may refuse the keys projection; whole documents still work.
                    result = try await PollFetcher(query: query).fetch(mode: .full, previous: previous)
                    mode = .full
                    fanOut.emit(.fellBackToFullDocuments(reason: error.description))
                }
                if Task.isCancelled { return }
                // The poll's statistics before its snapshot: a consumer that stops at the snapshot has heard them.
                fanOut.emit(.polled(result.statistics))
                let changed = apply(result, ordering: ordering)
                if backoff.succeeded() { fanOut.emit(.recovered) }
                unchangedPolls = changed ? 0 : unchangedPolls + 1
                let interval = policy.delay(afterUnchangedPolls: unchangedPolls)
                if let late = pacing.record(latency: result.statistics.latency, delay: interval) { fanOut.emit(late) }
                delay = policy.jittered(interval, random: Double.random(in: 0..<1, using: &generator))
            } catch {
                if Task.isCancelled { return }
                let failure = FirestoreError(wrapping: error)
                if PollingPolicy.isPermanent(failure) {
                    finish(throwing: failure)
                    return
                }
                delay = backoff.failed(
                    retryAfter: failure.retryAfter, random: Double.random(in: 0..<1, using: &generator))
                fanOut.emit(.pollFailed(failure, retryIn: delay))
            }
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            guard await demand.wait(until: { fanOut.hasWaitingListener }) else { return }
        }
    }

    /// Applies a poll result: drops it when stale, else computes the changes (checked against the server's order)
    /// and publishes a snapshot when there are any (or when it is the first).
    /// - Returns: whether a snapshot with changes was published.
    private func apply(_ result: PollFetcher.Result, ordering: DocumentOrdering) -> Bool {
        let applied = state.withLock { state -> (QuerySnapshot, changed: Bool, deliver: Bool, String?)? in
            if let last = state.poll.readTime, state.hasSnapshot, result.readTime <= last { return nil }
            let checked = DocumentChangeComputation.checkedChanges(
                from: state.poll.documents, to: result.documents, ordering: ordering)
            let isFirst = !state.hasSnapshot
            state.poll = result.state
            state.statistics = result.statistics
            state.hasSnapshot = true
            let snapshot = FeedSnapshot.make(
                query: query, documents: result.documents, changes: checked.changes, readTime: result.readTime,
                statistics: result.statistics, resumePoint: result.state.resumePoint)
            return (snapshot, !checked.changes.isEmpty, isFirst || !checked.changes.isEmpty, checked.mismatch)
        }
        guard let (snapshot, changed, deliver, mismatch) = applied else { return false }
        // An unchanged poll publishes nothing, but a listener joining later gets its read time and statistics.
        fanOut.publish(snapshot, deliver: deliver)
        if let mismatch { fanOut.emit(.orderingMismatch(reason: mismatch)) }
        return changed
    }
}
