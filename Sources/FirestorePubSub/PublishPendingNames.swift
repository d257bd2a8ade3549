import FirestoreFeed
import FirestoreREST
import Foundation

/// The names a checkpointed publish may have published as present without its checkpoint knowing them: written
/// before each snapshot's messages go out, beside the checkpoint store (`STORE-publish-pending-<16 hex>`, the hex of
/// the key's SHA-256), one name a line.
///
/// Why: a run killed while publishing a snapshot has sent some of its messages, and the next run resumes from the
/// checkpoint before that snapshot, which does not hold the documents the snapshot added. One of them deleted
/// meanwhile is in neither the checkpoint nor the new result, so the resumed feed reports no removal, and a consumer
/// that received the `added` keeps it for ever. The next run reads this file and publishes a removal, at its first
/// snapshot's read time, for every name in it that is not in the result (a removal of a document the consumer never
/// got is a tombstone, a no-op). The file is rewritten, not cleared, for each snapshot: after a snapshot is
/// acknowledged its names are in the checkpoint, so a removal published for one of them is the feed's own removal
/// at the same read time, a duplicate. A SIGKILL leaves the file's last write in the page cache; a machine that
/// loses power may lose it (as the checkpoint store's SQLite does not: it syncs).
struct PublishPendingNames: Sendable {
    let path: String

    init(storePath: String, key: String) {
        path = storePath + "-publish-pending-" + String(PubSubChangeMessage.sha256Hex(Array(key.utf8)).prefix(16))
    }

    /// The names written last (none when there is no file).
    func read() async throws -> Set<String> {
        let path = self.path
        return try await BlockingExecutor.detached(name: "publish-pending") { () throws -> Set<String> in
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
        }
    }

    /// Replaces the file with `names` (a temporary file renamed over it, so a reader never sees half of it).
    func write(_ names: Set<String>) async throws {
        let path = self.path
        try await BlockingExecutor.detached(name: "publish-pending") { () throws in
            let text = names.sorted().joined(separator: "\n")
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    }

    /// The removal messages for the names in `pending` that `snapshot` (a resumed feed's first) does not hold and
    /// does not already say removed, at its read time.
    static func removals(
        of pending: Set<String>, absentFrom snapshot: QuerySnapshot
    ) -> [PubSubMessage] {
        guard let readTime = snapshot.readTime else { return [] }
        var present = Set(snapshot.documents.compactMap { $0.document?.name })
        for change in snapshot.documentChanges where change.type == .removed {
            if let name = change.document.document?.name { present.insert(name) }
        }
        return pending.subtracting(present).sorted().map { name in
            PubSubChangeMessage.removal(name: name, readTime: readTime)
        }
    }
}
