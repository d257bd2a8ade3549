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
        let lease = Lease(buffer)
        return (AsyncThrowingStream(unfolding: { try await lease.buffer.next() }), buffer)
    }

    /// The same for a stream that never throws (a ``finish(throwing:)`` error ends it like a plain finish).
    package static func makeNonThrowingStream(
        coalesce: @escaping Coalesce, onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> (stream: AsyncStream<Element>, buffer: CoalescingBuffer) {
        let buffer = CoalescingBuffer(coalesce: coalesce, onEvent: onEvent)
        let lease = Lease(buffer)
        return (AsyncStream(unfolding: { (try? await lease.buffer.next()) ?? nil }), buffer)
    }

    /// Terminates the buffer when the stream holding it is released.
    private final class Lease: Sendable {
        let buffer: CoalescingBuffer
        init(_ buffer: CoalescingBuffer) { self.buffer = buffer }
        deinit { buffer.terminate() }
    }

    // MARK: Producer

    /// Hands `element` to the consumer: at once when it waits, else kept (replacing an element kept before, which
    /// is then folded into this one when the consumer asks). Ignored after the end.
    package func yield(_ element: Element) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
            guard state.ending == nil, !state.isTerminated else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                state.lastDelivered = element
                return waiter
            }
            state.folded = state.pending == nil ? 1 : state.folded + 1
            state.pending = element
            state.highWater = max(state.highWater, 1)
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// Ends the stream once the consumer has taken the element kept, with `error` when given. Runs the termination
    /// handler. Only the first call counts.
    package func finish(throwing error: (any Error)? = nil) {
        let (waiter, handler) = state.withLock {
            state -> (CheckedContinuation<Element?, any Error>?, (@Sendable () -> Void)?) in
            guard state.ending == nil, !state.isTerminated else { return (nil, nil) }
            state.ending = error.map(Ending.failed) ?? .finished
            let handler = state.onTermination
            state.onTermination = nil
            guard let waiter = state.waiter else { return (nil, handler) }
            state.waiter = nil
            state.ending = .finished
            return (waiter, handler)
        }
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
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
                    guard count > 1 else {
                        state.lastDelivered = pending
                        return .deliver(pending)
                    }
                    state.coalescedDeliveries += 1
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
                onEvent?(.snapshotsCoalesced(count: count))
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
                        let ready = state.withLock { state -> Bool in
                            guard state.pending == nil, state.ending == nil, !state.isTerminated else { return true }
                            state.waiter = continuation
                            return false
                        }
                        if ready { continuation.resume(returning: Optional<Element>.none) }
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
        let (waiter, handler) = state.withLock {
            state -> (CheckedContinuation<Element?, any Error>?, (@Sendable () -> Void)?) in
            guard !state.isTerminated else { return (nil, nil) }
            state.isTerminated = true
            state.pending = nil
            let handler = state.onTermination
            state.onTermination = nil
            let waiter = state.waiter
            state.waiter = nil
            return (waiter, handler)
        }
        waiter?.resume(returning: nil)
        handler?()
    }
}
