import FirestoreFeed
import FirestoreREST
import Foundation

/// Documents, times and table reads for the SQLite mirror's tests.
enum MirrorFixture {
    static let prefix = "projects/p/databases/(default)/documents/items/"

    /// The time `seconds` after 2026-01-01T00:00:00Z, plus `nanos`.
    static func time(_ seconds: Int64, _ nanos: Int32 = 0) -> Timestamp {
        (try? Timestamp(seconds: 1_767_225_600 + seconds, nanos: nanos)) ?? .minimum
    }

    /// Document `id` of `items` at version `updated` (seconds), created at second 1, with `fields`.
    static func document(_ id: String, updated: Int64, _ fields: [String: FirestoreValue] = [:]) -> Document {
        Document(name: prefix + id, fields: fields, createTime: time(1), updateTime: time(updated))
    }

    static func put(_ id: String, updated: Int64, _ fields: [String: FirestoreValue] = [:]) -> FeedSinkBatch.Change {
        .put(document(id, updated: updated, fields))
    }

    static func remove(_ id: String) -> FeedSinkBatch.Change { .remove(name: prefix + id) }

    /// A batch read at second `read`.
    static func batch(
        _ changes: [FeedSinkBatch.Change], read: Int64, token: String = "t", shard: Int = 0, generation: Int64 = 0
    ) -> FeedSinkBatch {
        FeedSinkBatch(
            changes: changes, readTime: time(read), resumeToken: Array(token.utf8), shard: shard,
            generation: generation)
    }

    /// The rows of `table` in `path`, one line each: `id update_time fields`, sorted by name.
    static func rows(_ path: String, table: String = "documents") -> [String] {
        lines(
            path,
            "SELECT coalesce(group_concat(line, char(10)), '') FROM (SELECT substr(name, \(prefix.utf8.count + 1)) || ' ' || "
                + "update_time || ' ' || fields AS line FROM \(table) ORDER BY name)")
    }

    /// The tombstones of `table` in `path`, one line each: `id removed_at`, sorted by name.
    static func tombstones(_ path: String, table: String = "documents") -> [String] {
        lines(
            path,
            "SELECT coalesce(group_concat(line, char(10)), '') FROM (SELECT substr(name, \(prefix.utf8.count + 1)) || ' ' || "
                + "removed_at AS line FROM \(table)_tombstones ORDER BY name)")
    }

    /// The single text `sql` gives in `path`, split into lines (a query that may find no row must give `''`, not
    /// `NULL`, which `CheckpointFiles.sql` cannot tell from the checkpoint pragma's result).
    static func lines(_ path: String, _ sql: String) -> [String] {
        guard let text = CheckpointFiles.sql(path, sql) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// The mirror's statistics: batches, applied, ignored, refused.
    static func counts(_ mirror: SQLiteMirror) -> [Int] {
        let statistics = mirror.statistics
        return [statistics.batches, statistics.applied, statistics.ignored, statistics.refused]
    }

    /// `seconds` after 2026-01-01 as the mirror stores it.
    static func stored(_ seconds: Int64) -> String {
        let base = time(seconds).rfc3339.dropLast()
        return base + ".000000000Z"
    }
}
