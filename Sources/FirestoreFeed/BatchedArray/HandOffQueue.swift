import Synchronization

/// A queue between producers and one consumer that stays bounded however slow the consumer is: ``put(_:)``
/// suspends the producer until the consumer has taken the element (so a producer reading a change feed stops
/// reading, and the feed's own ``CoalescingBuffer`` folds what the consumer misses), and ``post(_:replacing:)``
/// adds without waiting but first drops a queued element it supersedes (a newer failure replaces an older one).
///
/// Used by `QuerySnapshotEvent.relay` (snapshots are put, feed events posted) and by ``BatchedArray``'s delivery.
final class HandOffQueue<Element: Sendable>: Sendable {
    private struct Entry {
        let id: Int
        let element: Element
        /// The producer waiting for this element to be taken, if any.
        var taken: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var entries: [Entry] = []
        var nextID = 0
        var waiter: CheckedContinuation<Element?, Never>?
        var isFinished = false
    }

    private let state = Mutex(State())

    init() {}

    /// How many elements wait to be taken.
    var count: Int { state.withLock { $0.entries.count } }

    /// Adds `element` and returns when the consumer has taken it, the queue finished, or the calling task was
    /// cancelled (the element is then withdrawn when not yet taken).
    func put(_ element: Element) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (taken: CheckedContinuation<Void, Never>) in
                let (waiter, done) = state.withLock { state -> (CheckedContinuation<Element?, Never>?, Bool) in
                    if state.isFinished || Task.isCancelled { return (nil, true) }
                    if let waiter = state.waiter {
                        state.waiter = nil
                        return (waiter, true)
                    }
                    state.entries.append(Entry(id: id, element: element, taken: taken))
                    return (nil, false)
                }
                waiter?.resume(returning: element)
                if done { taken.resume() }
            }
        } onCancel: {
            let withdrawn = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return nil }
                return state.entries.remove(at: index).taken
            }
            withdrawn?.resume()
        }
    }

    /// Adds `element` without waiting, after removing the first queued element for which `supersedes` is true.
    /// Ignored after ``finish()``.
    func post(_ element: Element, replacing supersedes: (Element) -> Bool = { _ in false }) {
        let (waiter, released) = state.withLock {
            state -> (CheckedContinuation<Element?, Never>?, CheckedContinuation<Void, Never>?) in
            guard !state.isFinished else { return (nil, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, nil)
            }
            state.nextID += 1
            var released: CheckedContinuation<Void, Never>?
            if let index = state.entries.firstIndex(where: { supersedes($0.element) }) {
                released = state.entries.remove(at: index).taken
            }
            state.entries.append(Entry(id: state.nextID, element: element, taken: nil))
            return (nil, released)
        }
        waiter?.resume(returning: element)
        released?.resume()
    }

    /// Removes every queued element for which `isStale` is true (their producers go on).
    func removeAll(where isStale: (Element) -> Bool) {
        let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let stale = state.entries.filter { isStale($0.element) }
            state.entries.removeAll { isStale($0.element) }
            return stale.compactMap(\.taken)
        }
        for producer in released { producer.resume() }
    }

    /// Ends the queue: the consumer gets what is queued, then `nil`; waiting producers go on.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.isFinished = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next element, in order; `nil` once the queue is finished and empty, or when the calling task is
    /// cancelled.
    func next() async -> Element? {
        if Task.isCancelled { return nil }
        let taken = state.withLock { state -> (Element, CheckedContinuation<Void, Never>?)? in
            guard !state.entries.isEmpty else { return nil }
            let entry = state.entries.removeFirst()
            return (entry.element, entry.taken)
        }
        if let (element, producer) = taken {
            producer?.resume()
            return element
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let ready = state.withLock { state -> (Element, CheckedContinuation<Void, Never>?)?? in
                    if !state.entries.isEmpty {
                        let entry = state.entries.removeFirst()
                        return .some((entry.element, entry.taken))
                    }
                    // Cancelled before the wait began: the cancellation handler found no waiter to end.
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                switch ready {
                case .some(.some(let (element, producer))):
                    producer?.resume()
                    continuation.resume(returning: element)
                case .some(nil):
                    continuation.resume(returning: nil)
                case nil:
                    break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                let waiter = state.waiter
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
