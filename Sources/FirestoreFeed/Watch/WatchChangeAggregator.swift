import FirestoreREST

/// The Listen protocol's client side for any number of targets on one stream: what the Firebase SDKs call the
/// watch change aggregator. It consumes decoded `ListenResponse`s and says when each target has a consistent
/// snapshot to publish.
///
/// The rules (`google/firestore/v1/firestore.proto`, `ListenResponse` and `TargetChange`; Google's conformance
/// `listen-*.json` tests in `Tests/ConformanceTests/Resources/conformance`):
/// - `DocumentChange` adds or updates the document for its `target_ids` and removes it from its
///   `removed_target_ids`; `DocumentDelete` and `DocumentRemove` remove it from their `removed_target_ids` (every
///   target when empty). Changes are buffered per target.
/// - `TargetChange`: `ADD` acknowledges a target the client added (one it did not add is a protocol error);
///   `CURRENT` marks the targets current; `RESET` drops the buffered changes and marks every document of the
///   view as gone until the server sends it again; `REMOVE` the client did not ask for ends the target with its
///   `cause`. Empty `target_ids` means every target.
/// - A `NO_CHANGE` with empty `target_ids` and a `read_time` is a consistent snapshot point of the whole stream:
///   each target that is current applies its buffered changes and publishes a snapshot when something visible
///   changed (or it never published), and its resume token becomes the one to resume from.
/// - An `ExistenceFilter` whose count differs from the target's view: documents the bloom filter (when given)
///   says are not in the result are removed; if the count still differs the target is reset and must be
///   listened to again without a resume token.
///
/// A value type: the listen stream owns one and mutates it on one task.
package struct WatchChangeAggregator: Sendable {
    /// The targets the client listens to, by target ID.
    package private(set) var targets: [Int32: WatchTargetState] = [:]
    /// Targets the client removed: messages for them are ignored until the server's `REMOVE` arrives.
    private var removed: Set<Int32> = []
    /// Targets that are not the client's views (liveness probes, ``ignoreTarget(_:)``): messages naming them are
    /// accepted and otherwise ignored.
    private var ignored: Set<Int32> = []
    /// How many changes one target may buffer between snapshot points (distinct documents) before it is listened to
    /// again from scratch: a server that sends documents without ever reaching a snapshot point cannot grow the
    /// client's memory without limit. Default 1,000,000 (a 1,000,000-document first snapshot still fits).
    package var maxPendingDocuments = 1_000_000
    /// How many consistent snapshot points of the whole stream passed: a `NO_CHANGE` with a read time and no target
    /// IDs while every target was current (the stream's state is then fresh).
    package private(set) var consistentPoints = 0

    /// An aggregator with no target.
    package init() {}

    /// Accepts messages naming target `id` without tracking it (a liveness probe the stream added).
    package mutating func ignoreTarget(_ id: Int32) {
        ignored.insert(id)
    }

    /// Stops accepting messages for the ignored target `id`.
    package mutating func forgetIgnoredTarget(_ id: Int32) {
        ignored.remove(id)
    }

    /// Starts tracking target `id` (the client sends `add_target` with it).
    /// - Parameter scope: the documents the target may hold, or `nil` for any (``ListenScope``).
    package mutating func addTarget(
        _ id: Int32, ordering: DocumentOrdering, limit: DocumentLimit? = nil, scope: ListenScope? = nil
    ) {
        removed.remove(id)
        var target = WatchTargetState(ordering: ordering, limit: limit)
        target.scope = scope
        targets[id] = target
    }

    /// Stops tracking target `id` (the client sends `remove_target` with it).
    package mutating func removeTarget(_ id: Int32) {
        if targets.removeValue(forKey: id) != nil { removed.insert(id) }
    }

    /// Starts tracking target `id` again from `view`, the state of a target suspended before (its published list
    /// and resume token; the client sends `add_target` with that token): as after a dropped stream, nothing
    /// buffered is kept and the target is current only when the server says so again.
    package mutating func restoreTarget(_ id: Int32, from view: WatchTargetState, scope: ListenScope? = nil) {
        removed.remove(id)
        var view = view
        view.streamDropped()
        if let scope { view.scope = scope }
        targets[id] = view
    }

    /// Moves target `old`'s state to `new` (a re-listen under a new target ID keeps the published view, so the
    /// next snapshot lists only what differs from it); the resume token is dropped and `old` is removed.
    package mutating func moveTarget(from old: Int32, to new: Int32) {
        guard var state = targets.removeValue(forKey: old) else { return }
        removed.insert(old)
        state.resumeToken = nil
        state.pendingResumeToken = nil
        state.resumeReadTime = nil
        targets[new] = state
    }

    /// The stream ended: buffered changes are dropped and no target is current until the server says so again
    /// (published views and resume tokens are kept, for a resumed listen).
    package mutating func streamDropped() {
        for id in targets.keys { targets[id]?.streamDropped() }
        removed = []
        ignored = []
    }

    /// Applies one response.
    ///
    /// - Returns: the snapshots to publish and the targets that failed or must be listened to again, in target ID
    ///   order.
    /// - Throws: `FirestoreError` `.internal` for a protocol violation of the stream as a whole: an `ADD` for a
    ///   target the client did not add.
    /// - Complexity: O(t + d) for t targets and d target IDs in the message, plus, at a snapshot point, the
    ///   cost of ``WatchTargetState/applyPending(readTime:)`` for each target with changes.
    package mutating func apply(_ response: ListenResponse) throws(FirestoreError) -> [WatchEvent] {
        switch response {
        case .targetChange(let change):
            return try apply(change)
        case .documentChange(let change):
            let name = ByteExactName(name: change.document.name)
            var events: [WatchEvent] = []
            // One access to the target's state per ID (a first snapshot passes here once per document), in place
            // through `values`: `targets[id]?.buffer` moved the whole state out of the dictionary and back each time.
            for id in change.targetIDs {
                guard let index = targets.index(forKey: id) else { continue }
                guard let buffered = targets.values[index].buffer(change.document, named: name) else {
                    guard let scope = targets.values[index].scope else { continue }
                    throw FirestoreError(
                        code: .internal,
                        message: "Listen: the server sent document \(change.document.name) for target \(id), which "
                            + "is outside its query (\(scope)): a protocol error, not data")
                }
                if buffered > maxPendingDocuments, let overflow = overflow(id) { events.append(overflow) }
            }
            for id in change.removedTargetIDs {
                guard let index = targets.index(forKey: id),
                    let buffered = targets.values[index].buffer(nil, named: name)
                else { continue }
                if buffered > maxPendingDocuments, let overflow = overflow(id) { events.append(overflow) }
            }
            return events
        case .documentDelete(let delete):
            remove(delete.documentName, from: delete.removedTargetIDs)
            return []
        case .documentRemove(let remove):
            self.remove(remove.documentName, from: remove.removedTargetIDs)
            return []
        case .filter(let filter):
            return applyExistenceFilter(filter)
        case .unrecognized:
            return []
        }
    }

    /// The re-listen of target `id` when it buffers more than ``maxPendingDocuments`` changes: it is reset (as for
    /// an existence filter it fails) and must be listened to again from scratch.
    private mutating func overflow(_ id: Int32) -> WatchEvent? {
        guard let count = targets[id]?.pending.count, count > maxPendingDocuments else { return nil }
        targets[id]?.reset()
        return .targetNeedsRelisten(
            targetID: id,
            reason: "target \(id) buffered \(count) document changes without a consistent snapshot point (more than "
                + "the limit of \(maxPendingDocuments)); listening to it again from scratch")
    }

    private mutating func remove(_ documentName: String, from ids: [Int32]) {
        let name = ByteExactName(name: documentName)
        for id in ids.isEmpty ? Array(targets.keys) : ids where targets[id] != nil {
            targets[id]?.pending[name] = .some(nil)
        }
    }

    /// The targets a `TargetChange` names: all of them when it names none.
    private func affected(_ ids: [Int32]) -> [Int32] {
        ids.isEmpty ? targets.keys.sorted() : ids
    }

    private mutating func apply(_ change: ListenTargetChange) throws(FirestoreError) -> [WatchEvent] {
        switch change.kind {
        case .noChange:
            if let token = change.resumeToken {
                for id in affected(change.targetIDs) where targets[id] != nil {
                    targets[id]?.pendingResumeToken = token
                }
            }
            guard change.targetIDs.isEmpty, let readTime = change.readTime else { return [] }
            return snapshotPoint(readTime: readTime)
        case .add:
            for id in change.targetIDs where targets[id] == nil && !removed.contains(id) && !ignored.contains(id) {
                throw FirestoreError(
                    code: .internal, message: "Listen: the server added target \(id), which the client never asked for")
            }
            recordToken(change)
            return []
        case .current:
            for id in affected(change.targetIDs) where targets[id] != nil {
                // A CURRENT read before the target's last RESET is for the state the reset replaced (the emulator
                // sends one after the RESET, before the documents of the new state): it does not make the target
                // current, so no snapshot point publishes the reset view half sent.
                if let resetAt = targets[id]?.resetReadTime, let readTime = change.readTime, readTime < resetAt {
                    continue
                }
                targets[id]?.isCurrent = true
                targets[id]?.resetReadTime = nil
                if let token = change.resumeToken { targets[id]?.pendingResumeToken = token }
            }
            return []
        case .reset:
            for id in affected(change.targetIDs) where targets[id] != nil {
                targets[id]?.reset(readTime: change.readTime)
            }
            return []
        case .remove:
            var events: [WatchEvent] = []
            for id in affected(change.targetIDs) {
                if removed.remove(id) != nil { continue }  // the acknowledgement of the client's own removal
                if ignored.contains(id) { continue }
                guard targets.removeValue(forKey: id) != nil else { continue }
                let error =
                    change.cause?.error
                    ?? FirestoreError(
                        code: .internal, message: "Listen: the server removed target \(id) without a cause")
                events.append(.targetFailed(targetID: id, error: error))
            }
            return events
        }
    }

    private mutating func recordToken(_ change: ListenTargetChange) {
        guard let token = change.resumeToken else { return }
        for id in affected(change.targetIDs) where targets[id] != nil {
            targets[id]?.pendingResumeToken = token
        }
    }

    private mutating func snapshotPoint(readTime: Timestamp) -> [WatchEvent] {
        var events: [WatchEvent] = []
        for id in targets.keys.sorted() {
            guard targets[id]?.isCurrent == true,
                let (documents, changes, mismatch) = targets[id]?.applyPending(readTime: readTime)
            else { continue }
            if let mismatch { events.append(.orderingMismatch(targetID: id, reason: mismatch)) }
            // A target publishes only at points at or after its last one (``WatchTargetState/applyPending(readTime:)``).
            events.append(.snapshot(targetID: id, documents: documents, changes: changes, readTime: readTime))
        }
        if targets.values.allSatisfy(\.isCurrent) { consistentPoints += 1 }
        return events
    }

    private mutating func applyExistenceFilter(_ filter: ListenExistenceFilter) -> [WatchEvent] {
        // A filter names one target; 0 (the proto3 default) on a stream with a single target means that one.
        let id = targets[filter.targetID] == nil && targets.count == 1 ? targets.keys.first : filter.targetID
        guard let id, var state = targets[id] else { return [] }
        let expected = Int(filter.count)
        if state.currentCount == expected { return [] }
        if let bloom = filter.unchangedNames.flatMap(BloomFilterMembership.init) {
            for name in state.currentNames where !bloom.mightContain(name.name) {
                state.pending[name] = .some(nil)
            }
            if state.currentCount == expected {
                targets[id] = state
                return []
            }
        }
        state.reset()
        targets[id] = state
        return [
            .targetNeedsRelisten(
                targetID: id,
                reason: "target \(id): the server's existence filter counts \(expected), the client's view holds "
                    + "\(state.documents.count); listening to it again from scratch")
        ]
    }
}
