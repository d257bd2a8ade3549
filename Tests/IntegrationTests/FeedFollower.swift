import FirestoreREST
import Foundation
import Synchronization

/// Follows a change feed as a list UI does: applies each snapshot's changes to its list of IDs (remove at
/// `oldIndex`, insert at `newIndex`) and records every snapshot whose changes do not rebuild the snapshot's
/// documents. It can be slow on purpose: `pause` after each snapshot (with `Task.sleep`, never blocking a thread),
/// or `hold`, awaited after each snapshot with that snapshot's read time.
final class FeedFollower: Sendable {
    struct State: Sendable {
        /// The list of IDs after the last snapshot's changes.
        var ids: [String] = []
        /// The last snapshot's documents, as `(id, updateTime)`.
        var versions: [Version] = []
        var snapshots = 0
        /// Each snapshot's read time, in the order they were taken.
        var readTimes: [Timestamp?] = []
        /// One line per snapshot whose changes did not rebuild its documents, or whose change indexes were invalid.
        var problems: [String] = []
        /// The error that ended the feed, if any.
        var ended: String?
    }

    struct Version: Hashable, Sendable {
        let id: String
        let updateTime: Timestamp?
    }

    let state = Mutex(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts following `feed`, pausing `pause` after each snapshot, then awaiting `hold` (when given) with the
    /// snapshot's read time before taking the next.
    init(
        _ feed: AsyncThrowingStream<QuerySnapshot, any Error>, pause: Duration = .zero,
        hold: (@Sendable (Timestamp?) async throws -> Void)? = nil
    ) {
        // The task holds the follower until the feed ends or ``stop()`` cancels it.
        let follow = Task { [self] in
            do {
                for try await snapshot in feed {
                    self.state.withLock { Self.apply(snapshot, to: &$0) }
                    if pause > .zero { try await Task.sleep(for: pause) }
                    try await hold?(snapshot.readTime)
                }
            } catch {
                self.state.withLock { $0.ended = "\(error)" }
            }
        }
        task.withLock { $0 = follow }
    }

    /// Stops following (cancels the consuming task: the listener leaves).
    func stop() { task.withLock { $0?.cancel() } }

    /// Waits up to `seconds` for `condition` on the state, polling every 50 ms; returns the state then.
    func wait(seconds: Int, until condition: (State) -> Bool) async throws -> State {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline, !condition(state.withLock { $0 }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        return state.withLock { $0 }
    }

    static func apply(_ snapshot: QuerySnapshot, to state: inout State) {
        state.snapshots += 1
        state.readTimes.append(snapshot.readTime)
        var list = state.ids
        var valid = true
        for change in snapshot.documentChanges {
            let id = change.document.documentID
            switch change.type {
            case .removed:
                guard let index = change.oldIndex, list.indices.contains(index), list[index] == id else {
                    valid = false
                    continue
                }
                list.remove(at: index)
            case .added:
                guard let index = change.newIndex, index >= 0, index <= list.count else {
                    valid = false
                    continue
                }
                list.insert(id, at: index)
            case .modified:
                guard let from = change.oldIndex, let to = change.newIndex, list.indices.contains(from),
                    list[from] == id, to >= 0, to < list.count
                else {
                    valid = false
                    continue
                }
                list.remove(at: from)
                list.insert(id, at: to)
            }
        }
        let ids = snapshot.documents.map(\.documentID)
        if !valid || list != ids {
            state.problems.append("snapshot \(state.snapshots): changes give \(list), the documents are \(ids)")
        }
        state.ids = ids
        state.versions = snapshot.documents.map { Version(id: $0.documentID, updateTime: $0.updateTime) }
    }
}
