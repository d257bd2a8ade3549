import FirestoreFeed
import FirestoreREST

/// How documents and snapshots are printed: JSON lines for scripts, text for people.
package enum OutputFormat: String, Sendable {
    /// Lines for people.
    case text
    /// One JSON object per line.
    case jsonl

    /// One document as `{"id","path","createTime","updateTime","data"}`.
    static func documentJSON(_ snapshot: DocumentSnapshot) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(snapshot.documentID), "path": .string(snapshot.reference.path),
            "data": FirestoreValue.map(snapshot.data() ?? [:]).plainJSON,
        ]
        members["createTime"] = snapshot.createTime.map { .string($0.rfc3339) } ?? .null
        members["updateTime"] = snapshot.updateTime.map { .string($0.rfc3339) } ?? .null
        return .object(members)
    }

    /// One document for `export` and `import`: `{"id","path","createTime","updateTime","fields"}`, the fields
    /// as Firestore REST `Value` objects (REST reference: `Value`), which keep every type exactly.
    package static func exportJSON(_ snapshot: DocumentSnapshot) -> JSONValue {
        [
            "id": .string(snapshot.documentID), "path": .string(snapshot.reference.path),
            "createTime": snapshot.createTime.map { .string($0.rfc3339) } ?? .null,
            "updateTime": snapshot.updateTime.map { .string($0.rfc3339) } ?? .null,
            "fields": .object((snapshot.data() ?? [:]).mapValues(\.restJSON)),
        ]
    }

    /// The result of one write: `{"id","path","updateTime"}`.
    static func writeJSON(_ reference: DocumentReference, updateTime: Timestamp?) -> JSONValue {
        [
            "id": .string(reference.documentID), "path": .string(reference.path),
            "updateTime": updateTime.map { .string($0.rfc3339) } ?? .null,
        ]
    }

    /// One snapshot as `{"readTime","size","changes":[{"type","id","path","oldIndex","newIndex","data"}]}`, with
    /// `"resumed":true` when it is the first after a restart from a checkpoint (its changes are those since then).
    static func snapshotJSON(_ snapshot: QuerySnapshot, resumed: Bool = false) -> JSONValue {
        let changes: [JSONValue] = snapshot.documentChanges.map { change in
            [
                "type": .string(change.type.rawValue),
                "id": .string(change.document.documentID),
                "path": .string(change.document.reference.path),
                "oldIndex": change.oldIndex.map { .integer(Int64($0)) } ?? .null,
                "newIndex": change.newIndex.map { .integer(Int64($0)) } ?? .null,
                "data": FirestoreValue.map(change.document.data() ?? [:]).plainJSON,
            ]
        }
        var members: [String: JSONValue] = [
            "readTime": snapshot.readTime.map { .string($0.rfc3339) } ?? .null,
            "size": .integer(Int64(snapshot.count)),
            "changes": .array(changes),
        ]
        if resumed { members["resumed"] = true }
        return .object(members)
    }

    /// One snapshot as this format prints it: ``snapshotJSON(_:resumed:)`` on one line, or
    /// ``snapshotText(_:number:resumed:)``.
    func snapshotLine(_ snapshot: QuerySnapshot, number: Int, resumed: Bool = false) -> String {
        switch self {
        case .jsonl: Self.snapshotJSON(snapshot, resumed: resumed).serializedString()
        case .text: Self.snapshotText(snapshot, number: number, resumed: resumed)
        }
    }

    /// A feed group's shard snapshot as this format prints it: ``snapshotJSON(_:resumed:)`` with `"shard"`,
    /// `"generation"` and each change's `"updateTime"`; for people, the heading names the shard.
    func shardLine(_ shard: ShardSnapshot, number: Int) -> String {
        switch self {
        case .jsonl:
            guard case .object(var members) = Self.snapshotJSON(shard.snapshot, resumed: shard.resumedFrom != nil),
                case .array(let changes)? = members["changes"]
            else { return "" }
            members["shard"] = .integer(Int64(shard.shard))
            members["generation"] = .integer(shard.generation)
            members["changes"] = .array(
                zip(changes, shard.snapshot.documentChanges).map { line, change in
                    guard case .object(var fields) = line else { return line }
                    fields["updateTime"] = change.document.updateTime.map { .string($0.rfc3339) } ?? .null
                    return .object(fields)
                })
            return JSONValue.object(members).serializedString()
        case .text:
            return "shard \(shard.shard) (generation \(shard.generation)) "
                + Self.snapshotText(shard.snapshot, number: number, resumed: shard.resumedFrom != nil)
        }
    }

    /// A snapshot for people: a heading, one line per change, then the resulting list.
    static func snapshotText(_ snapshot: QuerySnapshot, number: Int, resumed: Bool = false) -> String {
        var lines = [
            "snapshot \(number) at \(snapshot.readTime?.rfc3339 ?? "?"): \(snapshot.count) document"
                + (snapshot.count == 1 ? "" : "s") + ", \(snapshot.documentChanges.count) change"
                + (snapshot.documentChanges.count == 1 ? "" : "s")
                + (resumed ? " since the checkpoint" : "")
        ]
        for change in snapshot.documentChanges {
            let id = change.document.documentID
            let data = FirestoreValue.map(change.document.data() ?? [:]).plainJSON.serializedString()
            switch change.type {
            case .added:
                lines.append("  + added     \(id) at \(change.newIndex ?? -1)  \(data)")
            case .modified:
                let move =
                    change.oldIndex == change.newIndex
                    ? "at \(change.newIndex ?? -1)" : "moved \(change.oldIndex ?? -1) -> \(change.newIndex ?? -1)"
                lines.append("  ~ modified  \(id) \(move)  \(data)")
            case .removed:
                lines.append("  - removed   \(id) from \(change.oldIndex ?? -1)")
            }
        }
        lines.append("  list: [" + snapshot.documents.map(\.documentID).joined(separator: ", ") + "]")
        return lines.joined(separator: "\n")
    }
}
