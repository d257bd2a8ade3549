import FirestoreREST

/// Replays a feed's `documentChanges` on a list of document IDs, as a list UI would, and records every change
/// that should not have happened.
///
/// A spurious change is: a removal or modification whose `oldIndex` does not hold that document; an
/// addition of a document that is already listed or was removed before (IDs are never reused in a soak);
/// a removal of a document the writer did not delete; a modification whose `updateTime` did not move
/// forward; a snapshot whose documents differ from the list after its changes; a `readTime` that does not
/// move forward.
struct ChangeListCheck {
    private(set) var list: [String] = []
    private(set) var problems: [String] = []
    private(set) var counts: [DocumentChangeType: Int] = [:]
    private(set) var snapshots = 0
    private var removedEver: Set<String> = []
    private var updateTimes: [String: Timestamp] = [:]
    private var lastReadTime: Timestamp?

    /// Applies one snapshot. `deleted` is whether the writer deleted a document (asked on removals).
    mutating func apply(_ snapshot: QuerySnapshot, deleted: (String) -> Bool) {
        snapshots += 1
        if let readTime = snapshot.readTime, let last = lastReadTime, readTime <= last {
            problems.append("readTime \(readTime) after \(last)")
        }
        lastReadTime = snapshot.readTime ?? lastReadTime
        for change in snapshot.documentChanges {
            let id = change.document.documentID
            counts[change.type, default: 0] += 1
            switch change.type {
            case .removed:
                removedEver.insert(id)
                if let index = change.oldIndex, index < list.count, list[index] == id {
                    list.remove(at: index)
                } else {
                    problems.append("removal of \(id) at \(change.oldIndex.map(String.init) ?? "nil")")
                }
                if !deleted(id) { problems.append("removal of \(id), which was not deleted") }
                updateTimes[id] = nil
            case .added:
                if removedEver.contains(id) || list.contains(id) { problems.append("\(id) added again") }
                list.insert(id, at: min(max(change.newIndex ?? 0, 0), list.count))
                updateTimes[id] = change.document.updateTime
            case .modified:
                if let index = change.oldIndex, index < list.count, list[index] == id {
                    list.remove(at: index)
                    list.insert(id, at: min(max(change.newIndex ?? 0, 0), list.count))
                } else {
                    problems.append("modification of \(id) at \(change.oldIndex.map(String.init) ?? "nil")")
                }
                let time = change.document.updateTime
                if let before = updateTimes[id], let time, time <= before {
                    problems.append("modification of \(id) without a newer updateTime")
                }
                updateTimes[id] = time
            }
        }
        let ids = snapshot.documents.map(\.documentID)
        if ids != list {
            problems.append("snapshot \(snapshots) lists \(ids.count) documents, the changes \(list.count)")
        }
    }
}
