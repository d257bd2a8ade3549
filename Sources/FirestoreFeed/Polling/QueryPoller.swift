import FirestoreREST
import Synchronization

/// Polls one query for any number of listeners and turns consecutive results into ``QuerySnapshot``s
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
final class QueryPoller: Sendable {
    struct Listener {
        let buffer: CoalescingBuffer<QuerySnapshot>
        let onEvent: (@Sendable (FeedEvent) -> Void)?
    }

    struct State {
        var listeners: [Int: Listener] = [:]
        var nextListenerID = 0
        /// The last applied result and what delta polling builds on (one value, for checkpoints).
        var poll = PollState()
        var statistics: PollStatistics?
        var hasSnapshot = false
        var task: Task<Void, Never>?
        var isFinished = false
    }

    let query: Query
    let policy: PollingPolicy
    let clock: any Clock<Duration>
    let initialMode: PollMode
    let onEmpty: @Sendable (QueryPoller) -> Void
    private let state: Mutex<State>
    /// Held while snapshots are handed to listeners, outside ``state``'s lock: yielding resumes a consumer task
    /// under that task's own lock, and a consumer being cancelled holds its lock while its termination handler
    /// takes ``state``'s (``removeListener(_:)``), so yielding under ``state``'s lock could deadlock. Taken before
    /// ``state``'s lock, it keeps each listener's snapshots in order.
    private let delivery = Mutex(())
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
    var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// The most snapshots any attached listener has held without taking them (0 or 1: ``CoalescingBuffer``).
    package var listenerBufferHighWater: Int {
        state.withLock { $0.listeners.values.map(\.buffer.highWater).max() ?? 0 }
    }

    /// Adds a listener; it receives the current snapshot at once when there is one. Starts polling with the
    /// first listener.
    /// - Returns: the listener's ID for ``removeListener(_:)``, or `nil` when this poller has already ended
    ///   (the caller then makes a new one).
    func addListener(_ buffer: CoalescingBuffer<QuerySnapshot>, onEvent: (@Sendable (FeedEvent) -> Void)?) -> Int? {
        delivery.withLock { _ in
            let joined = state.withLock { state -> (id: Int, initial: QuerySnapshot?)? in
                guard !state.isFinished else { return nil }
                let id = state.nextListenerID
                state.nextListenerID += 1
                state.listeners[id] = Listener(buffer: buffer, onEvent: onEvent)
                if state.task == nil {
                    state.task = Task { [self] in await run() }
                }
                return (id, state.hasSnapshot ? initialSnapshot(state) : nil)
            }
            if let initial = joined?.initial { buffer.yield(initial) }
            if joined != nil { buffer.setOnDemand { [demand] in demand.signal() } }
            return joined?.id
        }
    }

    /// Whether the poll loop is holding its next poll until a listener asks (for tests).
    var isAwaitingDemand: Bool { demand.isWaiting }

    /// Whether a listener is waiting for a snapshot.
    private var hasWaitingListener: Bool {
        state.withLock { $0.listeners.values.contains { $0.buffer.isWaiting } }
    }

    /// Removes a listener; with the last one gone, polling stops and the in-flight request is cancelled.
    func removeListener(_ id: Int) {
        let isEmpty = state.withLock { state -> Bool in
            guard state.listeners.removeValue(forKey: id) != nil, state.listeners.isEmpty, !state.isFinished else {
                return false
            }
            state.isFinished = true
            state.task?.cancel()
            state.task = nil
            return true
        }
        if isEmpty { onEmpty(self) }
    }

    /// The snapshot a joining listener gets: the current documents, every one added.
    private func initialSnapshot(_ state: State) -> QuerySnapshot {
        let firestore = query.firestore
        let documents = state.poll.documents.map { DocumentSnapshot(firestore: firestore, document: $0) }
        let changes = documents.enumerated().map { position, snapshot in
            DocumentChange(type: .added, document: snapshot, oldIndex: nil, newIndex: position)
        }
        var snapshot = QuerySnapshot(
            query: query, documents: documents, documentChanges: changes, readTime: state.poll.readTime,
            statistics: state.statistics)
        snapshot.resumePoint = state.poll.resumePoint
        return snapshot
    }

    private func emit(_ event: FeedEvent) {
        let handlers = state.withLock { $0.listeners.values.compactMap(\.onEvent) }
        for handler in handlers { handler(event) }
    }

    private func finish(throwing error: FirestoreError) {
        let listeners = state.withLock { state -> [Listener] in
            state.isFinished = true
            state.task = nil
            defer { state.listeners = [:] }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.buffer.finish(throwing: error) }
        onEmpty(self)
    }

    /// The poll loop: runs until cancelled or a permanent error.
    private func run() async {
        let ordering = DocumentOrdering(query: query)
        var mode = initialMode
        var failures = 0
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
                    emit(.fellBackToFullDocuments(reason: error.description))
                }
                if Task.isCancelled { return }
                // The poll's statistics before its snapshot: a consumer that stops at the snapshot has heard them.
                emit(.polled(result.statistics))
                let changed = apply(result, ordering: ordering)
                if failures > 0 {
                    failures = 0
                    emit(.recovered)
                }
                unchangedPolls = changed ? 0 : unchangedPolls + 1
                delay = policy.delay(afterUnchangedPolls: unchangedPolls)
                if let late = pacing.record(latency: result.statistics.latency, delay: delay) { emit(late) }
            } catch let error as FirestoreError {
                if Task.isCancelled { return }
                if PollingPolicy.isPermanent(error) {
                    finish(throwing: error)
                    return
                }
                failures += 1
                delay = policy.delay(afterFailures: failures, retryAfter: error.retryAfter)
                emit(.pollFailed(error, retryIn: delay))
            } catch {
                if Task.isCancelled { return }
                failures += 1
                delay = policy.delay(afterFailures: failures, retryAfter: nil)
                emit(.pollFailed(FirestoreError(code: .unknown, message: "\(error)"), retryIn: delay))
            }
            do {
                try await clock.sleep(for: policy.jittered(delay, random: Double.random(in: 0..<1, using: &generator)))
            } catch {
                return
            }
            guard await demand.wait(until: { hasWaitingListener }) else { return }
        }
    }

    /// Applies a poll result: drops it when stale, else computes the changes (checked against the server's order)
    /// and publishes a snapshot when there are any (or when it is the first).
    /// - Returns: whether a snapshot with changes was published.
    private func apply(_ result: PollFetcher.Result, ordering: DocumentOrdering) -> Bool {
        let firestore = query.firestore
        var mismatch: String?
        let changed = delivery.withLock { _ in
            let published = state.withLock { state -> (QuerySnapshot, [Listener], Bool)? in
                if let last = state.poll.readTime, state.hasSnapshot, result.readTime <= last { return nil }
                let checked = DocumentChangeComputation.checkedChanges(
                    from: state.poll.documents, to: result.documents, ordering: ordering)
                mismatch = checked.mismatch
                let changes = checked.changes
                let isFirst = !state.hasSnapshot
                state.poll = result.state
                state.statistics = result.statistics
                state.hasSnapshot = true
                guard isFirst || !changes.isEmpty else { return nil }
                var snapshot = QuerySnapshot(
                    query: query,
                    documents: result.documents.map { DocumentSnapshot(firestore: firestore, document: $0) },
                    documentChanges: changes.map { change in
                        DocumentChange(
                            type: change.type,
                            document: DocumentSnapshot(firestore: firestore, document: change.document),
                            oldIndex: change.oldIndex, newIndex: change.newIndex)
                    },
                    readTime: result.readTime, statistics: result.statistics)
                snapshot.resumePoint = result.state.resumePoint
                return (snapshot, Array(state.listeners.values), !changes.isEmpty)
            }
            guard let (snapshot, listeners, changed) = published else { return false }
            for listener in listeners { listener.buffer.yield(snapshot) }
            return changed
        }
        if let mismatch { emit(.orderingMismatch(reason: mismatch)) }
        return changed
    }
}
