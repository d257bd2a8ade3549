import FirestoreWire
import Synchronization

/// The documents the open read-write transactions of one client have read or are about to write, so that
/// transactions of the same client that touch the same document take turns instead of meeting on the server.
///
/// The server takes a shared lock for every document a transaction reads and an exclusive one when it commits
/// a write; two transactions that both read a document and then both commit wait for each other until the lock
/// timeout aborts them (on the emulator: "Transaction lock timeout." after about 2 s, for both). Here the second
/// transaction waits for the first to end before its read or its commit goes out, so it reads the first one's
/// result and both commit (`TransactionLiveTests`: 20 tasks × 10 increments of one counter all commit).
///
/// - A document is held by at most one transaction attempt; an attempt takes all the documents of one request
///   at once, or waits for all of them (waiters are served first come, first served).
/// - A request that would wait in a cycle (an attempt holding one of its documents waits, directly or through
///   others, for a document its own attempt holds) does not wait: it goes out at once and the server decides, as
///   without this table. A wait also ends after ``maximumWait``, a backstop for an attempt that never ends; a
///   cancelled task stops waiting at once.
/// - An attempt releases everything when it ends (commit, rollback or failure).
///
/// Other clients and other processes are not seen here: their conflicts are the server's to resolve.
package final class TransactionLocks: Sendable {
    /// The longest a request waits for documents held by other transactions of this client: 60 s. Only an attempt
    /// whose closure does not end for that long makes another wait so long: on a loaded machine 20 transactions
    /// taking turns can take tens of seconds, and a shorter limit sent them to meet on the server.
    package static let maximumWait: Duration = .seconds(60)

    private struct Waiter {
        let id: UInt64
        let owner: ObjectIdentifier
        let names: [String]
        var continuation: CheckedContinuation<Void, Never>?
        /// Set when the wait ended (timeout, cancellation) before the task suspended.
        var ended = false
    }

    private struct State {
        var holders: [String: ObjectIdentifier] = [:]
        var held: [ObjectIdentifier: Set<String>] = [:]
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let maximumWait: Duration

    /// A table whose waits last at most `maximumWait`.
    package init(maximumWait: Duration = TransactionLocks.maximumWait) {
        self.maximumWait = maximumWait
    }

    /// Takes `names` for `owner`, waiting while another owner holds any of them (at most ``maximumWait``, and not
    /// at all when the wait would close a cycle).
    /// - Returns: whether the documents were taken (`false` after a cycle, when the wait ran out or the task was
    ///   cancelled; the caller then goes on without them).
    @discardableResult
    package func acquire(_ names: [String], for owner: ObjectIdentifier) async -> Bool {
        enum Decision {
            case taken
            case cycle
            case wait(UInt64)
        }
        let decision: Decision = state.withLock { state in
            // What the owner holds already is not waited for again.
            let needed = names.filter { state.holders[$0] != owner }
            if Self.isFree(needed, for: owner, in: state), !state.waiters.contains(where: { Self.overlaps($0, needed) })
            {
                Self.take(needed, for: owner, in: &state)
                return .taken
            }
            if Self.wouldWaitInACycle(owner, for: needed, in: state) { return .cycle }
            state.nextWaiterID += 1
            state.waiters.append(Waiter(id: state.nextWaiterID, owner: owner, names: needed))
            return .wait(state.nextWaiterID)
        }
        let id: UInt64
        switch decision {
        case .taken: return true
        case .cycle: return false
        case .wait(let waiter): id = waiter
        }
        let timeout = Task { [maximumWait] in
            try? await Task.sleep(for: maximumWait)
            end(id)
        }
        defer { timeout.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let woken: [CheckedContinuation<Void, Never>] = state.withLock { state in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return [continuation] }
                    if state.waiters[index].ended {
                        state.waiters.remove(at: index)
                        return [continuation] + Self.serve(&state)
                    }
                    state.waiters[index].continuation = continuation
                    // The documents may have been released between registration and now.
                    return Self.serve(&state)
                }
                for continuation in woken { continuation.resume() }
            }
        } onCancel: {
            end(id)
        }
        return state.withLock { state in names.allSatisfy { state.holders[$0] == owner } }
    }

    /// Releases everything `owner` holds and lets the waiters that can now go on go on.
    package func release(_ owner: ObjectIdentifier) {
        let woken: [CheckedContinuation<Void, Never>] = state.withLock { state in
            for name in state.held.removeValue(forKey: owner) ?? [] where state.holders[name] == owner {
                state.holders[name] = nil
            }
            return Self.serve(&state)
        }
        for continuation in woken { continuation.resume() }
    }

    /// How many documents are held, for tests.
    package var heldCount: Int { state.withLock { $0.holders.count } }

    /// How many requests wait for documents, for tests: a request counts from the moment its wait is registered
    /// (when a request after it would already see it, to wait behind it or to find a cycle through it) until it
    /// is served or its wait ends.
    package var waiterCount: Int { state.withLock { state in state.waiters.count { !$0.ended } } }

    /// Ends waiter `id`'s wait without the documents (timeout or cancellation).
    private func end(_ id: UInt64) {
        let woken: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return [] }
            guard let continuation = state.waiters[index].continuation else {
                state.waiters[index].ended = true
                return []
            }
            state.waiters.remove(at: index)
            return [continuation] + Self.serve(&state)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Hands documents to the waiters, in order, whose documents are all free and not wanted by an earlier waiter.
    private static func serve(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        var woken: [CheckedContinuation<Void, Never>] = []
        var wanted: Set<String> = []
        var index = 0
        while index < state.waiters.count {
            let waiter = state.waiters[index]
            if let continuation = waiter.continuation, !waiter.ended,
                isFree(waiter.names, for: waiter.owner, in: state),
                wanted.isDisjoint(with: waiter.names)
            {
                take(waiter.names, for: waiter.owner, in: &state)
                state.waiters.remove(at: index)
                woken.append(continuation)
            } else {
                wanted.formUnion(waiter.names)
                index += 1
            }
        }
        return woken
    }

    /// Whether `owner` waiting for `names` would close a cycle: some owner it would wait for (a holder of one of
    /// `names`, or an earlier waiter for one) waits, directly or through others, for a document `owner` holds.
    private static func wouldWaitInACycle(_ owner: ObjectIdentifier, for names: [String], in state: State) -> Bool {
        var seen: Set<ObjectIdentifier> = []
        var pending = blockers(of: names, before: state.waiters.count, in: state)
        while let next = pending.popLast() {
            if next == owner { return true }
            guard seen.insert(next).inserted else { continue }
            for (index, waiter) in state.waiters.enumerated() where waiter.owner == next && !waiter.ended {
                pending.append(contentsOf: blockers(of: waiter.names, before: index, in: state))
            }
        }
        return false
    }

    /// The owners a wait for `names` waits for: their holders, and the waiters before position `end` that want
    /// one of them (they are served first).
    private static func blockers(of names: [String], before end: Int, in state: State) -> [ObjectIdentifier] {
        var owners = names.compactMap { state.holders[$0] }
        for waiter in state.waiters.prefix(end) where !waiter.ended && waiter.names.contains(where: names.contains) {
            owners.append(waiter.owner)
        }
        return owners
    }

    private static func isFree(_ names: [String], for owner: ObjectIdentifier, in state: State) -> Bool {
        names.allSatisfy { state.holders[$0] == nil || state.holders[$0] == owner }
    }

    private static func overlaps(_ waiter: Waiter, _ names: [String]) -> Bool {
        waiter.names.contains { names.contains($0) }
    }

    private static func take(_ names: [String], for owner: ObjectIdentifier, in state: inout State) {
        for name in names { state.holders[name] = owner }
        state.held[owner, default: []].formUnion(names)
    }
}
