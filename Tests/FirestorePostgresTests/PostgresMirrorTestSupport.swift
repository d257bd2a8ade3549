import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Documents, times, tables and SQL reads for the PostgreSQL mirror's tests (each test mirrors into tables of its own
/// in the one server `Scripts/test` starts).
enum PostgresFixture {
    static let prefix = "projects/p/databases/(default)/documents/items/"

    /// Whether the suites run (see `PostgresEnvironment`): skipped with a message without a URL, except under CI.
    static let enabled = ConditionTrait.enabled(
        if: PostgresEnvironment.enabled, Comment(rawValue: PostgresEnvironment.skipMessage))

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

    /// A mirror into a fresh table named after `label`, and the table's name.
    static func mirror(_ label: String) async throws -> (PostgresMirror, String) {
        let table = PostgresEnvironment.uniqueTable(label)
        return (try await PostgresMirror(url: try PostgresEnvironment.requireURL(), table: table), table)
    }

    /// Each row `sql` gives, its columns joined by a space (`NULL` as `NULL`).
    static func lines(_ sql: String) throws -> [String] {
        let connection = try PostgresConnection(url: try PostgresEnvironment.requireURL())
        return try connection.query(sql, doing: "a test's query").all.map { row in
            row.map { $0 ?? "NULL" }.joined(separator: " ")
        }
    }

    /// Runs `sql` (setup: a trigger, a constraint).
    static func execute(_ sql: String) throws {
        let connection = try PostgresConnection(url: try PostgresEnvironment.requireURL())
        try connection.execute(sql, doing: "a test's statement")
    }

    /// The rows of `table`, one line each: `id update_time fields`, sorted by name.
    static func rows(_ table: String) throws -> [String] {
        try lines(
            "SELECT substr(name, \(prefix.utf8.count + 1)), update_time, fields::text FROM \(table) ORDER BY name")
    }

    /// The tombstones of `table`, one line each: `id removed_at`, sorted by name.
    static func tombstones(_ table: String) throws -> [String] {
        try lines(
            "SELECT substr(name, \(prefix.utf8.count + 1)), removed_at FROM \(table)_tombstones ORDER BY name")
    }

    /// The mirror's statistics: batches, applied, ignored, refused.
    static func counts(_ mirror: PostgresMirror) -> [Int] {
        let statistics = mirror.statistics
        return [statistics.batches, statistics.applied, statistics.ignored, statistics.refused]
    }

    /// `seconds` after 2026-01-01 as the mirror stores it.
    static func stored(_ seconds: Int64) -> String {
        let base = time(seconds).rfc3339.dropLast()
        return base + ".000000000Z"
    }
}
