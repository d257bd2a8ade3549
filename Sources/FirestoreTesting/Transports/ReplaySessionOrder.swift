import FirestoreREST
import Synchronization

/// The session order of a ``ReplayTransport`` (``ReplayTransport/Ordering/session``): which recorded interactions
/// were requested and played, and the waits that depend on them. An HTTP response waits until every interaction
/// recorded before it was played; a replayed Listen response waits until the interactions the client had sent
/// when it was recorded were played (``Cassette/ListenSession/Message/afterInteractions``), so a snapshot follows
/// the write that caused it (both ``waitForTurn(_:stalled:)``).
///
/// A wait never hangs silently: when the interaction it waits for has not been requested by anyone and nothing
/// was played for ``stallTimeout`` (real time), the wait fails with `FirestoreError` `.failedPrecondition` and
/// the caller's message naming what is missing (issue 17: a feed replayed without the write recorded in between
/// used to wait forever).
final class ReplaySessionOrder: Sendable {
    private struct Waiter {
        /// The wait ends once every interaction before this index was played.
        let index: Int
        let stalled: @Sendable (_ missing: Int) -> FirestoreError
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var requested: [Bool]
        var delivered: [Bool]
        var frontier = 0
        /// How many interactions were played: a stall is a wait during which this did not move.
        var deliveries = 0
        var waiters: [Int: Waiter] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    /// How long a wait may go without progress while what it waits for was never requested.
    let stallTimeout: Duration
    private let state: Mutex<State>

    /// The order of `interactions`.
    init(interactions: [Cassette.Interaction], stallTimeout: Duration) {
        self.stallTimeout = stallTimeout
        state = Mutex(
            State(
                requested: Array(repeating: false, count: interactions.count),
                delivered: Array(repeating: false, count: interactions.count)))
    }

    /// Interaction `index` was taken by a request (`true`), or given back (`false`).
    func setRequested(_ index: Int, _ requested: Bool) {
        state.withLock { $0.requested[index] = requested }
    }

    /// Interaction `index` was played: waits that needed it may go on.
    func delivered(_ index: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.delivered[index] = true
            state.deliveries += 1
            while state.frontier < state.delivered.count, state.delivered[state.frontier] { state.frontier += 1 }
            var ready: [CheckedContinuation<Void, any Error>] = []
            for (id, waiter) in state.waiters where Self.missing(waiter.index, in: state) == nil {
                ready.append(waiter.continuation)
                state.waiters[id] = nil
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// How many waits are held (suspended until the interactions before them are played), for tests.
    var heldCount: Int {
        state.withLock { $0.waiters.count }
    }

    /// The interactions not played yet, in order.
    var unplayedIndices: [Int] {
        state.withLock { state in state.delivered.indices.filter { !state.delivered[$0] } }
    }

    /// Waits until every interaction before `index` was played (at once for `index` 0).
    /// - Throws: `stalled(missing)` (`.failedPrecondition`) when interaction `missing`, the first not played, is
    ///   never requested while nothing is played for ``stallTimeout``; `CancellationError` when the task is
    ///   cancelled.
    func waitForTurn(_ index: Int, stalled: @escaping @Sendable (_ missing: Int) -> FirestoreError) async throws {
        let id = state.withLock { state -> Int? in
            guard Self.missing(index, in: state) != nil else { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else { return }
        let watchdog = Task { [self] in await watch(id) }
        defer { watchdog.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case ready, cancelled, waiting }
                let outcome: Outcome = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .cancelled }
                    if Self.missing(index, in: state) == nil { return .ready }
                    state.waiters[id] = Waiter(index: index, stalled: stalled, continuation: continuation)
                    return .waiting
                }
                switch outcome {
                case .ready: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        state.withLock { _ = $0.cancelled.remove(id) }
    }

    /// The first interaction before `index` that was not played, if any.
    private static func missing(_ index: Int, in state: State) -> Int? {
        state.frontier >= index ? nil : state.frontier
    }

    /// Fails waiter `id` when, over a whole ``stallTimeout``, nothing was played and the interaction it waits for
    /// was not requested; ends when the wait does.
    private func watch(_ id: Int) async {
        var seen = state.withLock { $0.deliveries }
        while true {
            do {
                try await ContinuousClock().sleep(for: stallTimeout)
            } catch {
                return
            }
            let failed = state.withLock { state -> (Waiter, Int)? in
                guard let waiter = state.waiters[id] else { return nil }
                defer { seen = state.deliveries }
                guard state.deliveries == seen, let missing = Self.missing(waiter.index, in: state),
                    !state.requested[missing]
                else { return nil }
                state.waiters[id] = nil
                return (waiter, missing)
            }
            if let (waiter, missing) = failed {
                waiter.continuation.resume(throwing: waiter.stalled(missing))
                return
            }
        }
    }
}
