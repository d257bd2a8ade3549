import FirestoreREST
import Synchronization

/// One consumer's end of a change feed, holding at most one element the consumer has not taken yet: what each
/// listener of a poller, a Listen target, a document feed or a `BatchedArray.updates()` subscription is fed
/// through, in place of an `AsyncThrowingStream` with an unbounded buffer (issue 19: a consumer that did not keep
/// up made the buffer grow without bound).
///
/// - A consumer that waits gets each element as it comes; one element arriving while the consumer is busy is kept
///   and handed over as it is.
/// - When more arrive before the consumer asks again, only the newest is kept, and when the consumer asks it gets
///   `coalesce(lastDelivered, newest)`: the newest element expressed relative to the last one it received (for a
///   query snapshot, the changes from that snapshot's documents to the newest's). `nil` means nothing changed for
///   the consumer and nothing is delivered. Each such delivery is announced first as
///   ``FeedEvent/snapshotsCoalesced(count:)`` on `onEvent`.
/// - ``finish(throwing:)`` ends the stream after the element kept; cancelling the consuming task or dropping the
///   stream terminates it at once and runs the termination handler (the producer's way to forget the consumer),
///   exactly once.
/// - Demand: the producer can tell whether the consumer is waiting for an element (``isWaiting``), be called each
///   time it starts to (``setOnDemand(_:)``), or wait for that (``wanted()``). A consumer that stopped asking
///   without dropping its iterator (a `break` out of a `for try await` in top-level code of a `main.swift`,
///   whose iterator is never released) looks exactly like a busy one, so feeds do no work that nobody asked for:
///   pollers poll only while a listener waits, Listen targets are suspended when no listener has asked for a
///   while (issue 17).
///
/// The producer calls ``yield(_:)`` and ``finish(throwing:)`` from any task or thread; they never block and never
/// run consumer code. `coalesce` runs on the consumer's task.
package final class CoalescingBuffer<Element: Sendable>: Sendable {
    /// Expresses `newest` relative to the last element the consumer received (`nil`: none yet); `nil` when that
    /// leaves nothing to deliver.
    package typealias Coalesce = @Sendable (_ lastDelivered: Element?, _ newest: Element) -> Element?

    private enum Ending {
        case finished
        case failed(any Error)
    }

    private struct State {
        var pending: Element?
        /// How many yielded elements ``pending`` stands for.
        var folded = 0
        var lastDelivered: Element?
        var waiter: CheckedContinuation<Element?, any Error>?
        var ending: Ending?
        var isTerminated = false
        var onTermination: (@Sendable () -> Void)?
        var onDemand: (@Sendable () -> Void)?
        var demandWaiter: CheckedContinuation<Bool, Never>?
        /// How many times the consumer started waiting.
        var demands = 0
        /// Whether ``pending`` must be expressed relative to ``lastDelivered`` even when it stands for one element.
        var rebase = false
        var highWater = 0
        var coalescedDeliveries = 0
    }

    private let state = Mutex(State())
    private let coalesce: Coalesce
    private let onEvent: (@Sendable (FeedEvent) -> Void)?

    /// A buffer whose missed elements are folded by `coalesce`; coalescing is reported on `onEvent`.
    package init(coalesce: @escaping Coalesce, onEvent: (@Sendable (FeedEvent) -> Void)?) {
        self.coalesce = coalesce
        self.onEvent = onEvent
    }

    /// A throwing stream fed by a new buffer, and the buffer (the producer's end). Dropping the stream (and every
    /// iterator of it) terminates the buffer.
    package static func makeStream(
        coalesce: @escaping Coalesce, onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> (stream: AsyncThrowingStream<Element, any Error>, buffer: CoalescingBuffer) {
        let buffer = CoalescingBuffer(coalesce: coalesce, onEvent: onEvent)
        // The buffer is terminated when the stream holding it is released.
        let lease = ReleaseAction { buffer.terminate() }
        return (
            AsyncThrowingStream(unfolding: {
                _ = lease
                return try await buffer.next()
            }), buffer
        )
    }

    /// The same for a stream that never throws (a ``finish(throwing:)`` error ends it like a plain finish).
    package static func makeNonThrowingStream(
        coalesce: @escaping Coalesce, onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> (stream: AsyncStream<Element>, buffer: CoalescingBuffer) {
        let buffer = CoalescingBuffer(coalesce: coalesce, onEvent: onEvent)
        let lease = ReleaseAction { buffer.terminate() }
        return (
            AsyncStream(unfolding: {
                _ = lease
                return (try? await buffer.next()) ?? nil
            }), buffer
        )
    }

    // MARK: Producer

    /// Hands `element` to the consumer: at once when it waits, else kept (replacing an element kept before, which
    /// is then folded into this one when the consumer asks). Ignored after the end.
    ///
    /// With `rebased`, `element` is not relative to what the consumer received last (a joining listener's
    /// snapshot, every document added, handed to a consumer that already has snapshots): it is kept and, when the
    /// consumer takes it, expressed relative to the last element the consumer received with the `coalesce`
    /// function (nothing is delivered when that leaves nothing; no ``FeedEvent/snapshotsCoalesced(count:)`` for
    /// it alone).
    package func yield(_ element: Element, rebased: Bool = false) {
        let waiter = state.withLock { state -> (CheckedContinuation<Element?, any Error>, Element?)? in
            guard state.ending == nil, !state.isTerminated else { return nil }
            if let waiter = state.waiter, !rebased {
                state.waiter = nil
                state.lastDelivered = element
                return (waiter, element)
            }
            state.folded = state.pending == nil ? 1 : state.folded + 1
            state.pending = element
            if rebased { state.rebase = true }
            state.highWater = max(state.highWater, 1)
            guard let waiter = state.waiter else { return nil }
            // A rebased element is folded on the consumer's task: wake it up to look again.
            state.waiter = nil
            return (waiter, nil)
        }
        if let (waiter, element) = waiter { waiter.resume(returning: element) }
    }

    /// Ends the stream once the consumer has taken the element kept, with `error` when given. Runs the termination
    /// handler. Only the first call counts.
    package func finish(throwing error: (any Error)? = nil) {
        let (waiter, handler, demandWaiter) = state.withLock {
            state -> (
                CheckedContinuation<Element?, any Error>?, (@Sendable () -> Void)?, CheckedContinuation<Bool, Never>?
            ) in
            guard state.ending == nil, !state.isTerminated else { return (nil, nil, nil) }
            state.ending = error.map(Ending.failed) ?? .finished
            let handler = state.onTermination
            state.onTermination = nil
            state.onDemand = nil
            let demandWaiter = state.demandWaiter
            state.demandWaiter = nil
            guard let waiter = state.waiter else { return (nil, handler, demandWaiter) }
            state.waiter = nil
            state.ending = .finished
            return (waiter, handler, demandWaiter)
        }
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
        demandWaiter?.resume(returning: false)
        handler?()
    }

    /// Runs `handler` once when the consumer leaves (cancelled, stream dropped) or the stream is finished; at once
    /// when that already happened. Replaces a handler set before.
    package func setOnTermination(_ handler: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state -> Bool in
            guard state.ending == nil, !state.isTerminated else { return true }
            state.onTermination = handler
            return false
        }
        if ended { handler() }
    }

    /// Calls `handler` each time the consumer starts waiting for an element (at once when it is waiting now),
    /// until the end; replaces a handler set before. `handler` runs outside the buffer's lock, on the consumer's
    /// task or the caller's; it must not block.
    package func setOnDemand(_ handler: @escaping @Sendable () -> Void) {
        let waiting = state.withLock { state -> Bool in
            guard state.ending == nil, !state.isTerminated else { return false }
            state.onDemand = handler
            return state.waiter != nil
        }
        if waiting { handler() }
    }

    /// Returns `true` once the consumer is waiting for an element (at once when it is now), `false` when the stream
    /// ended or the calling task was cancelled first. For a relay that reads another feed only on demand. One
    /// caller at a time.
    package func wanted() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool? in
                    if state.ending != nil || state.isTerminated || Task.isCancelled { return false }
                    if state.waiter != nil { return true }
                    state.demandWaiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                defer { state.demandWaiter = nil }
                return state.demandWaiter
            }
            waiter?.resume(returning: false)
        }
    }

    /// Whether the consumer is waiting for an element now.
    package var isWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// How many times the consumer has started waiting for an element: unchanged between two looks while
    /// ``isWaiting`` is `false` means the consumer did not ask in between.
    package var demandCount: Int { state.withLock { $0.demands } }

    /// The most elements ever kept for the consumer at once (0 or 1).
    package var highWater: Int { state.withLock { $0.highWater } }

    /// How many elements are kept now (0 or 1).
    package var bufferedCount: Int { state.withLock { $0.pending == nil ? 0 : 1 } }

    /// How many deliveries folded several elements into one.
    package var coalescedDeliveries: Int { state.withLock { $0.coalescedDeliveries } }

    // MARK: Consumer

    private enum Step {
        case deliver(Element)
        case fold(Element, count: Int, lastDelivered: Element?)
        case end(Ending?)
        case wait
    }

    /// The next element, `nil` at the end; throws the error the producer finished with.
    package func next() async throws -> Element? {
        while true {
            if Task.isCancelled {
                terminate()
                return nil
            }
            let step = state.withLock { state -> Step in
                if let pending = state.pending {
                    state.pending = nil
                    let count = state.folded
                    state.folded = 0
                    let rebase = state.rebase
                    state.rebase = false
                    guard count > 1 || rebase else {
                        state.lastDelivered = pending
                        return .deliver(pending)
                    }
                    if count > 1 { state.coalescedDeliveries += 1 }
                    return .fold(pending, count: count, lastDelivered: state.lastDelivered)
                }
                if state.isTerminated { return .end(nil) }
                if let ending = state.ending {
                    state.ending = .finished
                    return .end(ending)
                }
                return .wait
            }
            switch step {
            case .deliver(let element):
                return element
            case .fold(let newest, let count, let lastDelivered):
                let element = coalesce(lastDelivered, newest)
                if count > 1 { onEvent?(.snapshotsCoalesced(count: count)) }
                guard let element else { continue }
                state.withLock { $0.lastDelivered = element }
                return element
            case .end(let ending?):
                if case .failed(let error) = ending { throw error }
                return nil
            case .end(nil):
                return nil
            case .wait:
                let element = try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation {
                        (continuation: CheckedContinuation<Element?, any Error>) in
                        let ready = state.withLock {
                            state -> (ready: Bool, demand: (@Sendable () -> Void)?, CheckedContinuation<Bool, Never>?)
                            in
                            guard state.pending == nil, state.ending == nil, !state.isTerminated else {
                                return (true, nil, nil)
                            }
                            state.waiter = continuation
                            state.demands += 1
                            let demandWaiter = state.demandWaiter
                            state.demandWaiter = nil
                            return (false, state.onDemand, demandWaiter)
                        }
                        if ready.ready {
                            continuation.resume(returning: Optional<Element>.none)
                        } else {
                            ready.2?.resume(returning: true)
                            ready.demand?()
                        }
                    }
                } onCancel: {
                    terminate()
                }
                // `nil` here is a wake-up to look again (something arrived between the check and the wait, or
                // the stream ended); an element was handed over directly.
                if let element { return element }
            }
        }
    }

    /// The consumer left: drop what is kept, end a waiting `next()`, run the termination handler.
    func terminate() {
        let (waiter, handler, demandWaiter) = state.withLock {
            state -> (
                CheckedContinuation<Element?, any Error>?, (@Sendable () -> Void)?, CheckedContinuation<Bool, Never>?
            ) in
            guard !state.isTerminated else { return (nil, nil, nil) }
            state.isTerminated = true
            state.pending = nil
            let handler = state.onTermination
            state.onTermination = nil
            state.onDemand = nil
            let waiter = state.waiter
            state.waiter = nil
            let demandWaiter = state.demandWaiter
            state.demandWaiter = nil
            return (waiter, handler, demandWaiter)
        }
        waiter?.resume(returning: nil)
        demandWaiter?.resume(returning: false)
        handler?()
    }
}
