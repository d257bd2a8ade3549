import FirestoreFeed
import FirestoreREST

/// What a ``PostgresMirror`` does inside its transactions, on its connection (on the mirror's executor, never a Swift
/// concurrency thread): the fencing check, the version-guarded changes and the resume point of one batch, in a few
/// round trips whatever the batch's size (`BEGIN`, the fence, one statement for the puts, one for the removals, the
/// resume point, `COMMIT`). The rows of a batch travel as one `jsonb` parameter (`jsonb_to_recordset`): data is
/// never written into the SQL. A load page of names the table holds nothing of goes by `COPY` (`PostgresMirrorLoad`).
enum PostgresMirrorRows {
    /// Applies `batch` to `table` in one transaction; rolls back (nothing changed) when anything throws or the batch
    /// is refused.
    static func apply(
        _ batch: FeedSinkBatch, table: String, on connection: PostgresConnection
    ) throws(FirestoreError) -> MirrorBatchOutcome {
        let place = "PostgreSQL mirror \(connection.place) table \(table)"
        guard let readTime = batch.readTime else {
            throw .invalidArgument(
                "\(place): a batch of shard \(batch.shard) without a read time (\(batch.changes.count) changes); "
                    + "nothing applied")
        }
        for case .put(let document) in batch.changes where document.updateTime == nil {
            throw .invalidArgument(
                "\(place): document \(document.name) has no updateTime, so no version to guard; nothing of its "
                    + "batch applied")
        }
        if let outcome = try PostgresMirrorLoad.apply(batch, readTime: readTime, table: table, on: connection) {
            return outcome
        }
        let readText = MirrorTimeText.text(readTime)
        try connection.execute("BEGIN", doing: "\(place): BEGIN")
        do {
            let fence = try connection.query(
                "SELECT generation FROM \"\(table)_resume\" WHERE shard = $1::bigint FOR UPDATE",
                [.text(String(batch.shard))], doing: "reading the generation of shard \(batch.shard) in \(table)_resume"
            )
            if fence.count > 0, let stored = fence.text(0, 0).flatMap(Int64.init), stored > batch.generation {
                connection.rollback()
                return .refused(storedGeneration: stored)
            }
            var applied = 0
            for segment in segments(batch.changes) {
                applied += try put(segment.puts, readTime: readText, table: table, on: connection)
                applied += try remove(segment.removals, readTime: readText, table: table, on: connection)
            }
            return try finish(batch, applied: applied, readText: readText, table: table, on: connection)
        } catch {
            connection.rollback()
            throw error
        }
    }

    /// Stores the resume point of `batch` (applied at `readText`, `applied` of its changes changing a row) and
    /// commits; or rolls back, when a writer of a higher generation created the shard's row after the fence read
    /// found none (the guard on the update catches it).
    static func finish(
        _ batch: FeedSinkBatch, applied: Int, readText: String, table: String, on connection: PostgresConnection
    ) throws(FirestoreError) -> MirrorBatchOutcome {
        let stored = try connection.query(
            """
            INSERT INTO "\(table)_resume" AS r (shard, resume_token, read_time, generation, query, load_cursor)
            VALUES ($1::bigint, $2::bytea, $3::text, $4::bigint, $5::text, $6::text)
            ON CONFLICT (shard) DO UPDATE SET resume_token = EXCLUDED.resume_token,
                read_time = EXCLUDED.read_time, generation = EXCLUDED.generation, query = EXCLUDED.query,
                load_cursor = EXCLUDED.load_cursor
            WHERE r.generation <= EXCLUDED.generation
            RETURNING r.generation
            """,
            [
                .text(String(batch.shard)), .bytes(batch.resumeToken), .text(readText),
                .text(String(batch.generation)), .text(batch.query), .text(batch.loadCursor),
            ], doing: "storing the resume point of shard \(batch.shard) in \(table)_resume")
        guard stored.count == 1 else {
            connection.rollback()
            let now = try storedGeneration(shard: batch.shard, table: table, on: connection)
            return .refused(storedGeneration: now ?? batch.generation)
        }
        try connection.execute(
            "COMMIT", doing: "PostgreSQL mirror \(connection.place) table \(table): COMMIT")
        return .committed(applied: applied, ignored: batch.changes.count - applied)
    }

    /// The changes in runs whose names are distinct (a new run starts when a name comes again), so that the changes
    /// of one run commute and go in one statement each, and runs apply in the batch's order.
    static func segments(_ changes: [FeedSinkBatch.Change]) -> [(puts: [Document], removals: [String])] {
        var segments: [(puts: [Document], removals: [String])] = []
        var seen: Set<String> = []
        var puts: [Document] = []
        var removals: [String] = []
        for change in changes {
            let name: String
            switch change {
            case .put(let document): name = document.name
            case .remove(let removed): name = removed
            }
            if !seen.insert(name).inserted {
                segments.append((puts, removals))
                puts = []
                removals = []
                seen = [name]
            }
            switch change {
            case .put(let document): puts.append(document)
            case .remove(let removed): removals.append(removed)
            }
        }
        if !puts.isEmpty || !removals.isEmpty { segments.append((puts, removals)) }
        return segments
    }

    /// Writes each of `documents` (distinct names) unless its row holds a version at or after its `updateTime` or its
    /// tombstone was left at or after both the batch's read time `readTime` and the `updateTime` (``FeedSink``'s
    /// version guard: a snapshot after the tombstone that holds the document says it is in the result again, whatever
    /// its `updateTime`); drops the tombstones of those written.
    /// - Returns: how many rows were written.
    private static func put(
        _ documents: [Document], readTime: String, table: String, on connection: PostgresConnection
    ) throws(FirestoreError) -> Int {
        guard !documents.isEmpty else { return 0 }
        let result = try connection.query(
            """
            WITH input AS (
                SELECT i.name, i.fields, i.create_time, i.update_time
                FROM jsonb_to_recordset($1::jsonb) AS i(name text, fields jsonb, create_time text, update_time text)
            ), written AS (
                INSERT INTO "\(table)" AS d (name, fields, create_time, update_time, read_time)
                SELECT i.name, i.fields, i.create_time, i.update_time, $2::text FROM input i
                WHERE NOT EXISTS (
                    SELECT 1 FROM "\(table)_tombstones" t
                    WHERE t.name = i.name AND t.removed_at >= $2::text AND t.removed_at >= i.update_time)
                ON CONFLICT (name) DO UPDATE SET fields = EXCLUDED.fields, create_time = EXCLUDED.create_time,
                    update_time = EXCLUDED.update_time, read_time = EXCLUDED.read_time
                WHERE d.update_time < EXCLUDED.update_time
                RETURNING d.name
            ), dropped AS (
                DELETE FROM "\(table)_tombstones" t USING written w WHERE t.name = w.name
            )
            SELECT count(*) FROM written
            """, [.text(rowsJSON(documents)), .text(readTime)],
            doing: "writing \(documents.count) rows of \(table) (the first \(documents[0].name))")
        return result.text(0, 0).flatMap(Int.init) ?? 0
    }

    /// The rows of `documents` as the `jsonb` parameter of ``put(_:readTime:table:on:)``: a JSON array of objects
    /// `{"create_time", "fields", "name", "update_time"}` (the fields as REST `Value` JSON, the times as
    /// ``MirrorTimeText``, a missing time `null`), written directly into one buffer; byte for byte the compact JSON
    /// of the same `JSONValue` tree.
    static func rowsJSON(_ documents: [Document]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(documents.count * 512)
        output.append(UInt8(ascii: "["))
        for (position, document) in documents.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: #"{"create_time":"#.utf8)
            time(document.createTime, to: &output)
            output.append(contentsOf: #","fields":"#.utf8)
            FirestoreValue.writeRESTFields(document.fields, to: &output)
            output.append(contentsOf: #","name":"#.utf8)
            JSONValue.writeString(document.name, to: &output)
            output.append(contentsOf: #","update_time":"#.utf8)
            time(document.updateTime, to: &output)
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "]"))
        return String(decoding: output, as: UTF8.self)
    }

    /// A time of ``rowsJSON(_:)``: the JSON string of ``MirrorTimeText``, or `null`.
    private static func time(_ time: Timestamp?, to output: inout [UInt8]) {
        guard let time else {
            output.append(contentsOf: "null".utf8)
            return
        }
        output.append(UInt8(ascii: "\""))
        MirrorTimeText.write(time, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Removes the rows of `names` (distinct) and leaves (or moves later) their tombstones at `readTime`, except for
    /// a name whose row was written by a batch after `readTime` (its `read_time`: a newer snapshot than the one that
    /// saw it leave held it) or holds a version at or after it, or whose tombstone is already at or after it.
    /// - Returns: how many documents were removed or got a first tombstone (a tombstone moved later changes no row).
    private static func remove(
        _ names: [String], readTime: String, table: String, on connection: PostgresConnection
    ) throws(FirestoreError) -> Int {
        guard !names.isEmpty else { return 0 }
        let result = try connection.query(
            """
            WITH input AS (
                SELECT DISTINCT i.name FROM jsonb_array_elements_text($1::jsonb) AS i(name)
            ), candidates AS (
                SELECT i.name, d.update_time AS held, t.removed_at AS existing FROM input i
                LEFT JOIN "\(table)" d ON d.name = i.name
                LEFT JOIN "\(table)_tombstones" t ON t.name = i.name
                WHERE (d.name IS NULL OR (d.read_time <= $2::text AND d.update_time < $2::text))
                    AND (t.removed_at IS NULL OR t.removed_at < $2::text)
            ), deleted AS (
                DELETE FROM "\(table)" d USING candidates c WHERE d.name = c.name
            ), stones AS (
                INSERT INTO "\(table)_tombstones" AS t (name, update_time, removed_at)
                SELECT c.name, c.held, $2::text FROM candidates c
                ON CONFLICT (name) DO UPDATE SET update_time = coalesce(EXCLUDED.update_time, t.update_time),
                    removed_at = EXCLUDED.removed_at
            )
            SELECT count(*) FROM candidates WHERE held IS NOT NULL OR existing IS NULL
            """, [.text(JSONValue.array(names.map { .string($0) }).serializedString()), .text(readTime)],
            doing: "removing \(names.count) rows of \(table) (the first \(names[0]))")
        return result.text(0, 0).flatMap(Int.init) ?? 0
    }

    /// The generation stored for `shard`, or `nil`.
    static func storedGeneration(
        shard: Int, table: String, on connection: PostgresConnection
    ) throws(FirestoreError) -> Int64? {
        let rows = try connection.query(
            "SELECT generation FROM \"\(table)_resume\" WHERE shard = $1::bigint", [.text(String(shard))],
            doing: "reading the generation of shard \(shard) in \(table)_resume")
        return rows.count > 0 ? rows.text(0, 0).flatMap(Int64.init) : nil
    }

    /// The resume point stored for `shard`, or `nil`.
    static func resumePoint(
        shard: Int, table: String, on connection: PostgresConnection
    ) throws(FirestoreError) -> FeedSinkResumePoint? {
        let rows = try connection.query(
            "SELECT resume_token, read_time, generation, query, load_cursor FROM \"\(table)_resume\" "
                + "WHERE shard = $1::bigint",
            [.text(String(shard))], doing: "reading the resume point of shard \(shard) in \(table)_resume")
        guard rows.count > 0 else { return nil }
        let place = "PostgreSQL mirror \(connection.place) \(table)_resume shard \(shard)"
        let readTime = try rows.text(0, 1).map { (text) throws(FirestoreError) in
            try MirrorTimeText.time(text, what: "\(place): read_time")
        }
        return FeedSinkResumePoint(
            resumeToken: rows.bytes(0, 0), readTime: readTime, generation: rows.text(0, 2).flatMap(Int64.init) ?? 0,
            query: rows.text(0, 3), loadCursor: rows.text(0, 4))
    }

    /// Every row of `table` as a document, sorted by name (byte for byte).
    static func documents(table: String, on connection: PostgresConnection) throws(FirestoreError) -> [Document] {
        let rows = try connection.query(
            "SELECT name, fields::text, create_time, update_time FROM \"\(table)\" ORDER BY name",
            doing: "reading the rows of \(table)")
        var documents: [Document] = []
        documents.reserveCapacity(rows.count)
        for row in 0..<rows.count {
            let name = rows.text(row, 0) ?? ""
            let place = "PostgreSQL mirror \(connection.place) table \(table) row \(name)"
            let fields: [String: FirestoreValue]
            do {
                guard case .object(let members) = try JSONValue.parse(rows.text(row, 1) ?? "") else {
                    throw FirestoreError(code: .dataLoss, message: "\(place): fields is not a JSON object")
                }
                fields = try FirestoreValue.decodeFields(members)
            } catch let error as FirestoreError {
                throw FirestoreError(code: .dataLoss, message: "\(place): fields: \(error.message)")
            } catch {
                throw FirestoreError(code: .dataLoss, message: "\(place): fields: \(error)")
            }
            let createTime = try rows.text(row, 2).map { (text) throws(FirestoreError) in
                try MirrorTimeText.time(text, what: "\(place): create_time")
            }
            let updateTime = try MirrorTimeText.time(rows.text(row, 3) ?? "", what: "\(place): update_time")
            documents.append(Document(name: name, fields: fields, createTime: createTime, updateTime: updateTime))
        }
        return documents
    }

    /// Deletes the tombstones of `table` removed before `time`; returns how many.
    static func pruneTombstones(
        removedBefore time: Timestamp, table: String, on connection: PostgresConnection
    ) throws(FirestoreError) -> Int {
        let result = try connection.query(
            "DELETE FROM \"\(table)_tombstones\" WHERE removed_at < $1::text", [.text(MirrorTimeText.text(time))],
            doing: "pruning the tombstones of \(table)")
        return result.changed
    }
}
