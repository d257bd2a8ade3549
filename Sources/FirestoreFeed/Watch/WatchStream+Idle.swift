import FirestoreREST
import Synchronization

extension WatchStream {
    /// Every half ``idleTimeout``, suspends the targets whose listeners are all idle (so a target is suspended after
    /// between half the timeout and the timeout without demand); ends with the stream.
    func sweepIdleTargets() async {
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: idleTimeout / 2)
            } catch {
                return
            }
            if suspendIdleTargets() { return }
        }
    }

    /// Suspends each target whose listeners all hold an untaken snapshot and none of whom is waiting or has
    /// started waiting since the last sweep: the target is removed from the stream (`remove_target`), and each
    /// listener resumes it when it asks again. The stream ends when no target is left.
    /// - Returns: whether the stream ended.
    private func suspendIdleTargets() -> Bool {
        var suspended: [(Suspended, [FeedListener])] = []
        var ending: Ending?
        let ended = delivery.withLock { _ in
            state.withLock { state -> Bool in
                guard !state.isFinished else { return true }
                for (id, target) in state.targets.sorted(by: { $0.key < $1.key }) {
                    let listeners = target.fanOut.listenersByID
                    var marks: [Int: Int] = [:]
                    var isIdle = !listeners.isEmpty
                    for (listenerID, listener) in listeners {
                        let demands = listener.buffer.demandCount
                        marks[listenerID] = demands
                        if listener.buffer.isWaiting || target.demandMarks[listenerID] != demands
                            || listener.buffer.bufferedCount == 0
                        {
                            isIdle = false
                        }
                    }
                    state.targets[id]?.demandMarks = marks
                    guard isIdle, let view = state.aggregator.targets[id] else { continue }
                    state.targets[id] = nil
                    state.byKey[target.key] = nil
                    state.aggregator.removeTarget(id)
                    if state.call != nil {
                        state.outbox.append(ListenRequest(removing: id, database: firestore.database.name))
                    }
                    let saved = Suspended(
                        key: target.key, query: target.query, view: view, lastSnapshot: target.fanOut.current)
                    suspended.append((saved, target.fanOut.finish()))
                }
                guard !suspended.isEmpty, state.targets.isEmpty else { return false }
                ending = Self.end(&state)
                return true
            }
        }
        if let ending { close(ending) } else if !ended { flushOutbox() }
        for (target, listeners) in suspended {
            for listener in listeners {
                let resumed = Atomic(false)
                listener.buffer.setOnTermination {}
                listener.buffer.setOnDemand { [resume] in
                    if !resumed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged { return }
                    resume(target, listener)
                }
            }
        }
        if ended && !suspended.isEmpty { onEnd(self, nil) }
        return ended
    }
}
