import FirestoreREST

/// The check a ``CheckpointedFeed`` runs before writing a snapshot: its changes, applied to the names the store
/// holds for the key, must give exactly as many documents as the snapshot lists (the feed's contract: a snapshot's
/// `documentChanges` applied to the previous snapshot's list give its list; <doc:FeedGuarantees>).
/// A snapshot that fails it is never written: what the store holds would no longer be the consumer's last
/// snapshot, and the next load would refuse the key as damaged.
///
/// Names are compared byte for byte (``ByteExactName``).
struct CheckpointChangeCheck: Sendable {
    /// The names the store holds for the key, as of the last snapshot written (or loaded).
    private(set) var names: Set<ByteExactName>

    /// The names of `documents` (a loaded checkpoint's; none when there is no checkpoint).
    init(documents: [Document]) {
        names = Set(documents.map { ByteExactName(name: $0.name) })
    }

    /// Applies `snapshot`'s changes to ``names`` when they are consistent with it: an added document that was not
    /// stored, a modified or removed one that was, and as many documents in the end as the snapshot lists.
    /// - Returns: `nil` when the changes were applied; otherwise what disagreed, naming every change and document
    ///   (the first 40 of each), and ``names`` is left as it was.
    /// - Complexity: O(c) for c changes; O(n) more, for the message only, when the check fails.
    mutating func apply(_ snapshot: QuerySnapshot) -> String? {
        var updated = names
        var problems: [String] = []
        for change in snapshot.documentChanges {
            guard let document = change.document.document else {
                problems.append("\(change.type.rawValue) \(change.document.documentID) carries no document")
                continue
            }
            let name = ByteExactName(name: document.name)
            let short = DocumentChangeComputation.shortName(document.name)
            switch change.type {
            case .added:
                if !updated.insert(name).inserted { problems.append("added \(short), which is stored") }
            case .modified:
                if !updated.contains(name) { problems.append("modified \(short), which is not stored") }
            case .removed:
                if updated.remove(name) == nil { problems.append("removed \(short), which is not stored") }
            }
        }
        if updated.count != snapshot.count {
            problems.append(
                "the changes leave \(updated.count) documents of the \(names.count) stored, "
                    + "the snapshot lists \(snapshot.count)")
        }
        guard !problems.isEmpty else {
            names = updated
            return nil
        }
        let changes = snapshot.documentChanges.map { change in
            "\(change.type.rawValue) \(change.document.documentID) \(change.oldIndex.map(String.init) ?? "-")->"
                + (change.newIndex.map(String.init) ?? "-")
        }
        let documents = snapshot.documents.map(\.documentID)
        return problems.joined(separator: "; ") + "; its changes: \(Self.list(changes)); its documents: "
            + Self.list(documents)
    }

    /// `items` as `[a, b, ...]`, the first 40 and how many more.
    private static func list(_ items: [String]) -> String {
        let shown = items.prefix(40).joined(separator: ", ")
        return "[" + shown + (items.count > 40 ? ", ... \(items.count - 40) more" : "") + "]"
    }
}
