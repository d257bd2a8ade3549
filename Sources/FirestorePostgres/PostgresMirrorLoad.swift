import FirestoreFeed
import FirestoreREST

/// A ``PostgresMirror`` batch of new documents by `COPY`: a backfill page into names the table holds nothing of (a
/// fresh mirror's load, or the rest of one after a restart) goes in with `COPY … FROM STDIN (FORMAT binary)` instead
/// of the version-guarded `INSERT … ON CONFLICT`, in the page's transaction with the fence and the resume point (its
/// load cursor), 5 round trips (`BEGIN`, the fence with the tombstone check, `COPY`, the resume point, `COMMIT`).
///
/// Exact, not a heuristic: the guard writes every row of such a batch (no row to hold a version at or after it, no
/// tombstone to keep it out) and drops no tombstone, and `COPY` writes the same rows; when the table holds a row of
/// one of the names, or the batch names one document twice, the primary key refuses the `COPY`, which is rolled back
/// whole, and the batch goes the guarded way. Tombstones are checked before: any in the byte range of the batch's
/// names (`COLLATE "C"`) sends it the guarded way.
enum PostgresMirrorLoad {
    /// Whether `batch` is worth trying by `COPY`: a page of a load (no resume token) of puts only, no name holding
    /// U+0000 (which PostgreSQL's `text` cannot hold: the guarded way reports it).
    static func eligible(_ batch: FeedSinkBatch) -> Bool {
        guard batch.resumeToken == nil, !batch.changes.isEmpty else { return false }
        for change in batch.changes {
            guard case .put(let document) = change, !document.name.utf8.contains(0) else { return false }
        }
        return true
    }

    /// Applies `batch` (read at `readTime`, each document with an `updateTime`) by `COPY` in one transaction.
    /// - Returns: the outcome, or `nil` when the batch is not one for `COPY` (``eligible(_:)``, a tombstone in its
    ///   names' range, a name the table holds or the batch repeats), with nothing changed: apply it the guarded way.
    /// - Throws: the server's failure (nothing changed).
    static func apply(
        _ batch: FeedSinkBatch, readTime: Timestamp, table: String, on connection: PostgresConnection
    ) throws(FirestoreError) -> MirrorBatchOutcome? {
        guard eligible(batch) else { return nil }
        var documents: [Document] = []
        documents.reserveCapacity(batch.changes.count)
        for case .put(let document) in batch.changes { documents.append(document) }
        // The range of the names as PostgreSQL's "C" collation orders them: by their UTF-8 bytes.
        var low = documents[0].name
        var high = low
        for document in documents.dropFirst() {
            if document.name.utf8.lexicographicallyPrecedes(low.utf8) { low = document.name }
            if high.utf8.lexicographicallyPrecedes(document.name.utf8) { high = document.name }
        }
        let place = "PostgreSQL mirror \(connection.place) table \(table)"
        try connection.execute("BEGIN", doing: "\(place): BEGIN")
        do {
            let fence = try connection.query(
                """
                SELECT (SELECT generation FROM "\(table)_resume" WHERE shard = $1::bigint FOR UPDATE),
                    EXISTS (SELECT 1 FROM "\(table)_tombstones" WHERE name >= $2::text COLLATE "C"
                        AND name <= $3::text COLLATE "C")
                """, [.text(String(batch.shard)), .text(low), .text(high)],
                doing: "reading the generation of shard \(batch.shard) in \(table)_resume")
            if let stored = fence.text(0, 0).flatMap(Int64.init), stored > batch.generation {
                connection.rollback()
                return .refused(storedGeneration: stored)
            }
            guard fence.text(0, 1) == "f" else {
                connection.rollback()
                return nil
            }
            let copied = try connection.copyIn(
                "COPY \"\(table)\" (name, fields, create_time, update_time, read_time) FROM STDIN (FORMAT binary)",
                PostgresMirrorCopyData(documents, readTime: readTime),
                doing: "copying \(documents.count) rows into \(table) (the first \(documents[0].name))")
            guard let copied else {
                connection.rollback()
                return nil
            }
            return try PostgresMirrorRows.finish(
                batch, applied: copied, readText: MirrorTimeText.text(readTime), table: table, on: connection)
        } catch {
            connection.rollback()
            throw error
        }
    }
}
