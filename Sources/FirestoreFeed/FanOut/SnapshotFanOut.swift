import FirestoreREST
import Synchronization

/// The listeners of one stream of snapshots (a poller's, a Listen target's): the registry, ordered delivery, the
/// snapshot a joining listener gets, events, and the end. What `QueryPoller` and `WatchStream` share.
///
/// - A listener that joins gets the current snapshot at once, every document added (as the SDKs do), then every
///   later one, in order: joining and publishing hand snapshots over under one delivery lock.
/// - Two locks: ``state`` guards the registry and nothing else; ``delivery`` is held while snapshots are handed to
///   listeners, outside ``state``'s lock. Yielding resumes a consumer task under that task's own lock, and a consumer
///   being cancelled holds its lock while its termination handler takes ``state``'s (``remove(_:)``), so yielding
///   under ``state``'s lock could deadlock. Taken before ``state``'s, ``delivery`` keeps each listener's snapshots in
///   order. Events and yields run with ``state`` released.
final class SnapshotFanOut: Sendable {
    private struct State {
        var listeners: [Int: FeedListener] = [:]
        /// The listeners whose next snapshot is rebased or announced (``FeedListener/rebaseNext``,
        /// ``FeedListener/announcement``): the few a publish has to reset, so a publish to 1,000 listeners writes
        /// none of the others.
        var marked: Set<Int> = []
        var nextID = 0
        /// The feed's current snapshot: what a joining listener gets.
        var current: QuerySnapshot?
        var isFinished = false
    }

    private let state = Mutex(State())
    private let delivery = Mutex(())

    init(current: QuerySnapshot? = nil) {
        state.withLock { $0.current = current }
    }

    /// Adds `listener`, handing it the current snapshot (every document added) when there is one.
    /// - Returns: its ID for ``remove(_:)``, or `nil` when the fan-out has finished.
    func add(_ listener: FeedListener) -> Int? {
        delivery.withLock { _ in
            let joined = state.withLock { state -> (Int, QuerySnapshot?)? in
                guard !state.isFinished else { return nil }
                let id = state.nextID
                state.nextID += 1
                var kept = listener
                if state.current != nil {
                    kept.rebaseNext = false
                    kept.announcement = nil
                }
                state.listeners[id] = kept
                if kept.rebaseNext || kept.announcement != nil { state.marked.insert(id) }
                return (id, state.current.map(FeedSnapshot.initial))
            }
            guard let (id, initial) = joined else { return nil }
            if let initial {
                if let announcement = listener.announcement { listener.onEvent?(announcement) }
                listener.buffer.yield(initial, rebased: listener.rebaseNext)
            }
            return id
        }
    }

    /// Removes listener `id`; the last one to leave finishes the fan-out (no listener joins it any more: a late joiner
    /// is told to make a new feed).
    /// - Returns: whether it was there and was the last.
    @discardableResult
    func remove(_ id: Int) -> Bool {
        state.withLock { state in
            state.marked.remove(id)
            guard state.listeners.removeValue(forKey: id) != nil, state.listeners.isEmpty else { return false }
            state.isFinished = true
            return true
        }
    }

    /// Makes `snapshot` the current one and, with `deliver`, hands it to every listener in order (a listener marked
    /// ``FeedListener/rebaseNext`` gets it relative to what it received last, after its announcement).
    func publish(_ snapshot: QuerySnapshot, deliver: Bool = true) {
        delivery.withLock { _ in
            let listeners = state.withLock { state -> [FeedListener] in
                guard !state.isFinished else { return [] }
                state.current = snapshot
                guard deliver else { return [] }
                let listeners = Array(state.listeners.values)
                for id in state.marked {
                    state.listeners[id]?.rebaseNext = false
                    state.listeners[id]?.announcement = nil
                }
                state.marked.removeAll(keepingCapacity: true)
                return listeners
            }
            for listener in listeners {
                if let announcement = listener.announcement { listener.onEvent?(announcement) }
                listener.buffer.yield(snapshot, rebased: listener.rebaseNext)
            }
        }
    }

    /// Tells every listener `event`.
    func emit(_ event: FeedEvent) {
        for handler in state.withLock({ $0.listeners.values.compactMap(\.onEvent) }) { handler(event) }
    }

    /// Ends the fan-out: no listener joins any more; with `error`, every listener's stream ends with it.
    /// - Returns: the listeners that were attached (to move elsewhere, without an error).
    @discardableResult
    func finish(throwing error: (any Error)? = nil) -> [FeedListener] {
        let listeners = state.withLock { state -> [FeedListener] in
            state.isFinished = true
            defer { (state.listeners, state.marked) = ([:], []) }
            return Array(state.listeners.values)
        }
        if let error {
            for listener in listeners { listener.buffer.finish(throwing: error) }
        }
        return listeners
    }

    /// The attached listeners.
    var listeners: [FeedListener] { state.withLock { Array($0.listeners.values) } }

    /// The listeners by ID (for demand bookkeeping).
    var listenersByID: [Int: FeedListener] { state.withLock { $0.listeners } }

    /// How many listeners are attached.
    var count: Int { state.withLock { $0.listeners.count } }

    /// The current snapshot, if any.
    var current: QuerySnapshot? { state.withLock { $0.current } }

    /// Whether a listener is waiting for a snapshot.
    var hasWaitingListener: Bool { state.withLock { $0.listeners.values.contains { $0.buffer.isWaiting } } }

    /// The most snapshots any attached listener has held without taking them (0 or 1: ``CoalescingBuffer``).
    var bufferHighWater: Int { state.withLock { $0.listeners.values.map(\.buffer.highWater).max() ?? 0 } }
}
