import Dispatch
import FirestoreREST
import Synchronization

/// The current result of one query as an ordered array of document snapshots, reporting every change as one
/// batched ``SnapshotArrayDiff``: FirebaseUI-iOS's `FUIBatchedArray` for
/// Linux, with its defects fixed.
///
/// ```swift
/// let favourites = BatchedArray(query: db.collection("fruits").order(by: "name"), interval: .seconds(1))
/// favourites.observeQuery()
/// for await update in favourites.updates() {
///     print(update.diff.insertedIndexes, update.items.map(\.documentID))
/// }
/// ```
///
/// - Nothing happens until ``observeQuery()``; it and ``stopObserving()`` are idempotent.
///   ``stopObserving()`` keeps the items; observing again diffs the current items against the new listen's
///   first snapshot, so a restart that finds the same documents is an empty diff, never duplicates (field
///   case A-8).
/// - Every snapshot is diffed against the current items by identity (full resource name, byte for byte) and
///   content (`updateTime`, fields), in O(n log n) at worst (``SnapshotArrayDiff``). Replacing ``source``
///   while observing stops the old listen and diffs the old contents against the new source's first
///   snapshot. (FirebaseUI used the change list when "in sync" and an O(n·m) LCS otherwise; one content
///   diff covers both, and also reports documents that moved and changed: `SnapshotArrayDiffFieldCaseTests.a2...`.)
/// - Fixes over FirebaseUI (`BatchedArrayTests.a1...`): in `willUpdate` the array still shows the old contents,
///   in `didUpdate` the new; updates are delivered one at a time, in order, never re-entrantly; an error is
///   reported (``BatchedArrayDelegate/batchedArray(_:queryDidFailWithError:)``, ``lastError``) and never
///   empties or changes the items.
/// - A delegate (or ``updates()`` subscriber) slower than the snapshots costs bounded memory: the array reads its
///   source's next event only once the last one is applied, so a feed that goes on meanwhile folds what was
///   missed into one snapshot (`FeedEvent.snapshotsCoalesced(count:)`), which is diffed against the current items
///   as usual: nothing is lost.
/// - Documents repeated in one snapshot (same name, byte for byte) are kept once, the first occurrence.
/// - Releasing the array stops its listen.
///
/// Every member can be used from any thread or task. Updates are applied on the array's own delivery task;
/// take ``items`` once for a consistent view rather than reading ``count`` and then indexing. The delegate
/// is called on that task (a thread of Swift's shared cooperative pool), or on `delegateQueue` when one is
/// given: a delegate that blocks or does long work must use a queue, since a blocked pool thread stalls every
/// task of the process.
public final class BatchedArray: Sendable {
    /// One applied update: the diff from the old items to the new, and the new items.
    public struct Update: Sendable {
        /// The diff; `diff.initial` is the old items, `diff.result` the new.
        public let diff: SnapshotArrayDiff<DocumentSnapshot>
        /// The items after the update (`diff.result`).
        public var items: [DocumentSnapshot] { diff.result }
    }

    /// A listen's event, tagged with the generation of the listen it came from.
    private struct Message: Sendable {
        let generation: Int
        /// `nil` when the listen ended.
        let event: QuerySnapshotEvent?
    }

    private struct State {
        var items: [DocumentSnapshot] = []
        var source: any QuerySnapshotSource
        weak var delegate: (any BatchedArrayDelegate)?
        var isObserving = false
        /// Incremented by every start and stop, so that events of an older listen are dropped.
        var generation = 0
        var listenTask: Task<Void, Never>?
        var lastError: (any Error)?
        var subscribers: [Int: CoalescingBuffer<Update>] = [:]
        var nextSubscriber = 0
    }

    private let state: Mutex<State>
    /// Every listen's events on their way to the delivery task; a listen reads its next event only once the last
    /// one was taken, so the queue stays bounded however slow the delegate is.
    private let mailbox = HandOffQueue<Message>()
    /// Where delegate calls run; `nil`: on the delivery task itself.
    private let delegateQueue: DispatchQueue?

    /// An array fed by `source`, reporting to `delegate` (held weakly). It does not start listening until
    /// ``observeQuery()``.
    ///
    /// - Parameters:
    ///   - source: where the snapshots come from.
    ///   - delegate: the receiver of updates and errors, held weakly.
    ///   - delegateQueue: the queue the delegate is called on (like FirebaseUI, which calls on the main queue);
    ///     `nil` calls it on the delivery task. Either way the calls never overlap, and the next update waits
    ///     until the delegate has returned.
    public init(
        source: any QuerySnapshotSource, delegate: (any BatchedArrayDelegate)? = nil,
        delegateQueue: DispatchQueue? = nil
    ) {
        var initial = State(source: source)
        initial.delegate = delegate
        state = Mutex(initial)
        self.delegateQueue = delegateQueue
        // The one delivery task: every update and error passes through it, so delegate calls never overlap.
        Task { [weak self, mailbox = self.mailbox] in
            while let message = await mailbox.next() {
                guard let self else { return }
                await self.deliver(message)
            }
        }
    }

    /// An array of the results of `query` from `source` (``FeedQuerySource``): Firestore's Listen stream unless
    /// told otherwise, or polling every `interval`.
    /// - Parameters:
    ///   - query: the query whose results the array holds.
    ///   - source: ``FeedSource/listen`` (default) or ``FeedSource/poll(_:)`` in a `PollMode`.
    ///   - interval: time between polls, when polling.
    ///   - delegate: the receiver of updates and errors, held weakly.
    ///   - delegateQueue: the queue the delegate is called on; `nil`: the delivery task.
    public convenience init(
        query: some QueryRepresentable, source: FeedSource = .listen, interval: Duration = .seconds(1),
        delegate: (any BatchedArrayDelegate)? = nil, delegateQueue: DispatchQueue? = nil
    ) {
        self.init(
            source: FeedQuerySource(query, source: source, interval: interval), delegate: delegate,
            delegateQueue: delegateQueue)
    }

    deinit {
        let (task, subscribers) = state.withLock { state in
            (state.listenTask, Array(state.subscribers.values))
        }
        task?.cancel()
        mailbox.finish()
        for subscriber in subscribers { subscriber.finish() }
    }

    // MARK: Contents

    /// The documents currently held, in query order.
    public var items: [DocumentSnapshot] { state.withLock { $0.items } }

    /// The number of documents held.
    public var count: Int { state.withLock { $0.items.count } }

    /// The document at `index`, or `nil` when `index` is out of range (FirebaseUI raised an exception; the
    /// items can change on the delivery task between reading ``count`` and indexing).
    public subscript(index: Int) -> DocumentSnapshot? {
        state.withLock { state in state.items.indices.contains(index) ? state.items[index] : nil }
    }

    /// The last error the source reported, cleared when the source recovers or the next snapshot is applied.
    public var lastError: (any Error)? { state.withLock { $0.lastError } }

    /// Whether the array is listening: between ``observeQuery()`` and ``stopObserving()`` or the end of the
    /// source's listen (after an error that ends it).
    public var isObserving: Bool { state.withLock { $0.isObserving } }

    /// How many listen events wait for the delivery task, for tests: a listen hands its next event over only
    /// once the last one was taken, so this is at most one per listen.
    package var queuedEventCount: Int { mailbox.count }

    /// The receiver of events, held weakly.
    public var delegate: (any BatchedArrayDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The source of snapshots (FirebaseUI's `query`). Setting it while observing stops the old listen and
    /// starts one on the new source, whose first snapshot is diffed against the current items; otherwise the
    /// new source is used at the next ``observeQuery()``.
    public var source: any QuerySnapshotSource {
        get { state.withLock { $0.source } }
        set {
            let wasObserving = state.withLock { state in
                let wasObserving = state.isObserving
                Self.stop(&state)
                state.source = newValue
                return wasObserving
            }
            if wasObserving { observeQuery() }
        }
    }

    // MARK: Observing

    /// Starts listening to ``source``. Does nothing when already observing.
    public func observeQuery() {
        guard
            let (generation, source) = state.withLock({ state -> (Int, any QuerySnapshotSource)? in
                guard !state.isObserving else { return nil }
                state.isObserving = true
                state.generation += 1
                return (state.generation, state.source)
            })
        else { return }
        // Made outside the lock (the source is user code) but synchronously, so the listen has begun on return.
        let stream = source.makeSnapshotStream()
        let mailbox = self.mailbox
        let task = Task {
            for await event in stream { await mailbox.put(Message(generation: generation, event: event)) }
            await mailbox.put(Message(generation: generation, event: nil))
        }
        let isCurrent = state.withLock { state in
            guard state.generation == generation else { return false }
            state.listenTask = task
            return true
        }
        if !isCurrent { task.cancel() }
    }

    /// Stops listening; the items are kept. Events of the stopped listen that were not yet delivered are
    /// dropped. Does nothing when not observing.
    public func stopObserving() {
        state.withLock { Self.stop(&$0) }
    }

    private static func stop(_ state: inout State) {
        guard state.isObserving else { return }
        state.isObserving = false
        state.generation += 1
        state.listenTask?.cancel()
        state.listenTask = nil
    }

    // MARK: Updates

    /// The updates applied from now on, in order, for async consumers (each call is a new subscription; the
    /// sequence ends when the array is released). Errors are not in this sequence: see ``lastError`` and the
    /// delegate.
    ///
    /// A subscriber that falls behind holds at most one update it has not taken: updates applied meanwhile reach
    /// it as one, whose diff goes from the items of the last update it received (or the items when it subscribed)
    /// to the newest (nothing when they are the same).
    public func updates() -> AsyncStream<Update> {
        let (stream, buffer, id) = state.withLock { state in
            let subscribedItems = state.items
            let (stream, buffer) = CoalescingBuffer<Update>.makeNonThrowingStream(
                coalesce: { lastDelivered, newest in
                    let diff = SnapshotArrayDiff(initial: lastDelivered?.items ?? subscribedItems, result: newest.items)
                    return diff.isEmpty ? nil : Update(diff: diff)
                }, onEvent: nil)
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = buffer
            return (stream, buffer, id)
        }
        buffer.setOnTermination { [weak self] in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// `documents` with repeated names (byte for byte) dropped, the first occurrence kept.
    private static func unique(_ documents: [DocumentSnapshot]) -> [DocumentSnapshot] {
        var seen: Set<ByteExactName> = []
        seen.reserveCapacity(documents.count)
        return documents.filter { seen.insert($0.identityName).inserted }
    }

    /// Runs `call` on ``delegateQueue`` (suspending, never blocking, until it returns), or inline without one.
    private func callDelegate(_ call: @escaping @Sendable () -> Void) async {
        guard let delegateQueue else { return call() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            delegateQueue.async {
                call()
                continuation.resume()
            }
        }
    }

    /// Applies one message on the delivery task.
    private func deliver(_ message: Message) async {
        guard
            let (items, delegate) = state.withLock({ state -> ([DocumentSnapshot], (any BatchedArrayDelegate)?)? in
                guard state.generation == message.generation else { return nil }
                return (state.items, state.delegate)
            })
        else { return }
        switch message.event {
        case nil:
            state.withLock { state in
                guard state.generation == message.generation else { return }
                state.isObserving = false
                state.listenTask = nil
            }
        case .failure(let error)?:
            state.withLock { $0.lastError = error }
            if let delegate { await callDelegate { delegate.batchedArray(self, queryDidFailWithError: error) } }
        case .recovered?:
            state.withLock { $0.lastError = nil }
        case .snapshot(let snapshot)?:
            let documents = Self.unique(snapshot.documents)
            let diff = SnapshotArrayDiff(initial: items, result: documents)
            if let delegate { await callDelegate { delegate.batchedArray(self, willUpdateWith: diff) } }
            let subscribers = state.withLock { state in
                state.items = documents
                state.lastError = nil
                return Array(state.subscribers.values)
            }
            if let delegate { await callDelegate { delegate.batchedArray(self, didUpdateWith: diff) } }
            let update = Update(diff: diff)
            for subscriber in subscribers { subscriber.yield(update) }
        }
    }
}
