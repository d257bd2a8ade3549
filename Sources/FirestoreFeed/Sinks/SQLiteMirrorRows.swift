import FirestoreREST

/// What an ``SQLiteMirror`` does inside its transactions, on its connection (on the mirror's executor, never a Swift
/// concurrency thread): the fencing check, the version-guarded changes and the resume point of one batch.
enum SQLiteMirrorRows {
    /// Applies `batch` to `table` in one `BEGIN IMMEDIATE` transaction; rolls back (nothing changed) when anything
    /// throws, and changes nothing when the batch is refused.
    static func apply(
        _ batch: FeedSinkBatch, table: String, on connection: SQLiteConnection
    ) throws(FirestoreError) -> MirrorBatchOutcome {
        try connection.transaction(doing: "applying a batch to table \(table)") { () throws(FirestoreError) in
            let stored = try storedGeneration(shard: batch.shard, table: table, on: connection)
            if let stored, stored > batch.generation { return .refused(storedGeneration: stored) }
            guard let readTime = batch.readTime else {
                throw .invalidArgument(
                    "SQLite mirror \(connection.path) table \(table): a batch of shard \(batch.shard) without a read "
                        + "time (\(batch.changes.count) changes); nothing applied")
            }
            let readText = MirrorTimeText.text(readTime)
            var applied = 0
            for change in batch.changes {
                let changed: Bool
                switch change {
                case .put(let document):
                    changed = try put(document, readTime: readText, table: table, on: connection)
                case .remove(let name):
                    changed = try remove(name, readTime: readText, table: table, on: connection)
                }
                if changed { applied += 1 }
            }
            let resume = try connection.statement(
                "INSERT INTO \"\(table)_resume\" (shard, resume_token, read_time, generation, query, load_cursor) "
                    + "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(shard) DO UPDATE SET resume_token = excluded.resume_token, "
                    + "read_time = excluded.read_time, generation = excluded.generation, query = excluded.query, "
                    + "load_cursor = excluded.load_cursor")
            try resume.bind(1, integer: Int64(batch.shard))
            try resume.bind(2, blob: batch.resumeToken)
            try resume.bind(3, text: readText)
            try resume.bind(4, integer: batch.generation)
            try resume.bind(5, text: batch.query)
            try resume.bind(6, text: batch.loadCursor)
            try resume.run(doing: "storing the resume point of shard \(batch.shard) in \(table)_resume")
            return .committed(applied: applied, ignored: batch.changes.count - applied)
        }
    }

    /// Writes `document` unless the row of its name holds a version at or after its `updateTime`, or its tombstone was
    /// left at or after both the batch's read time `readTime` (a removal seen by a snapshot as new as this one, or newer)
    /// and the `updateTime` (a version made after the removal is newer than it).
    /// A tombstone left before `readTime` does not stop it, whatever its `updateTime`: a snapshot at `readTime` holding
    /// the document says it is in the result then, and a document can leave a result and come back unchanged (a
    /// `limit` window; a Listen snapshot that lacked it and sends it again, as the emulator's do after a reset).
    /// - Returns: whether a row changed.
    private static func put(
        _ document: Document, readTime: String, table: String, on connection: SQLiteConnection
    ) throws(FirestoreError) -> Bool {
        guard let updateTime = document.updateTime else {
            throw .invalidArgument(
                "SQLite mirror \(connection.path) table \(table): document \(document.name) has no updateTime, so no "
                    + "version to guard; nothing of its batch applied")
        }
        let version = MirrorTimeText.text(updateTime)
        if let held = try single(
            "SELECT update_time FROM \"\(table)\" WHERE name = ?", document.name, connection, doing: "reading a row"),
            held >= version
        {
            return false
        }
        if let removedAt = try single(
            "SELECT removed_at FROM \"\(table)_tombstones\" WHERE name = ?", document.name, connection,
            doing: "reading a tombstone"), removedAt >= readTime, removedAt >= version
        {
            return false
        }
        let upsert = try connection.statement(
            "INSERT INTO \"\(table)\" (name, fields, create_time, update_time, read_time) VALUES (?, ?, ?, ?, ?) "
                + "ON CONFLICT(name) DO UPDATE SET fields = excluded.fields, create_time = excluded.create_time, "
                + "update_time = excluded.update_time, read_time = excluded.read_time")
        try upsert.bind(1, text: document.name)
        try upsert.bind(2, text: FirestoreValue.encodeFields(document.fields).serializedString())
        try upsert.bind(3, text: document.createTime.map(MirrorTimeText.text))
        try upsert.bind(4, text: version)
        try upsert.bind(5, text: readTime)
        try upsert.run(doing: "writing the row of \(document.name)")
        let drop = try connection.statement("DELETE FROM \"\(table)_tombstones\" WHERE name = ?")
        try drop.bind(1, text: document.name)
        try drop.run(doing: "dropping the tombstone of \(document.name)")
        return true
    }

    /// Removes the row of `name` and leaves (or moves later) its tombstone at `readTime`, unless the row was written by
    /// a snapshot after `readTime` (its `read_time`: a newer snapshot than the one that saw it leave held it) or holds
    /// a version at or after it.
    /// - Returns: whether a document was removed or a new tombstone left.
    private static func remove(
        _ name: String, readTime: String, table: String, on connection: SQLiteConnection
    ) throws(FirestoreError) -> Bool {
        let row = try connection.statement("SELECT update_time, read_time FROM \"\(table)\" WHERE name = ?")
        defer { row.reset() }
        try row.bind(1, text: name)
        var held: String?
        if try row.step(doing: "reading the row of \(name)") {
            held = row.text(0)
            if let written = row.text(1), written > readTime { return false }
            if let held, held >= readTime { return false }
        }
        let existing = try single(
            "SELECT removed_at FROM \"\(table)_tombstones\" WHERE name = ?", name, connection,
            doing: "reading a tombstone")
        if let existing, existing >= readTime { return false }
        let delete = try connection.statement("DELETE FROM \"\(table)\" WHERE name = ?")
        try delete.bind(1, text: name)
        try delete.run(doing: "removing the row of \(name)")
        let tombstone = try connection.statement(
            "INSERT INTO \"\(table)_tombstones\" (name, update_time, removed_at) VALUES (?, ?, ?) "
                + "ON CONFLICT(name) DO UPDATE SET update_time = coalesce(excluded.update_time, update_time), "
                + "removed_at = excluded.removed_at")
        try tombstone.bind(1, text: name)
        try tombstone.bind(2, text: held)
        try tombstone.bind(3, text: readTime)
        try tombstone.run(doing: "leaving the tombstone of \(name)")
        // A tombstone moved later (the name was already gone) changes no row of the documents' table.
        return held != nil || existing == nil
    }

    /// The generation stored for `shard`, or `nil`.
    static func storedGeneration(
        shard: Int, table: String, on connection: SQLiteConnection
    ) throws(FirestoreError) -> Int64? {
        let statement = try connection.statement("SELECT generation FROM \"\(table)_resume\" WHERE shard = ?")
        defer { statement.reset() }
        try statement.bind(1, integer: Int64(shard))
        guard try statement.step(doing: "reading the generation of shard \(shard)") else { return nil }
        return statement.integer(0)
    }

    /// The resume point stored for `shard`, or `nil`.
    static func resumePoint(
        shard: Int, table: String, on connection: SQLiteConnection
    ) throws(FirestoreError) -> FeedSinkResumePoint? {
        let statement = try connection.statement(
            "SELECT resume_token, read_time, generation, query, load_cursor FROM \"\(table)_resume\" WHERE shard = ?")
        defer { statement.reset() }
        try statement.bind(1, integer: Int64(shard))
        guard try statement.step(doing: "reading the resume point of shard \(shard)") else { return nil }
        let readTime = try statement.text(1).map { (text) throws(FirestoreError) in
            try MirrorTimeText.time(text, what: "\(connection.path) \(table)_resume shard \(shard): read_time")
        }
        return FeedSinkResumePoint(
            resumeToken: statement.bytes(0), readTime: readTime, generation: statement.integer(2),
            query: statement.text(3), loadCursor: statement.text(4))
    }

    /// Every row of `table` as a document, sorted by name (byte for byte).
    static func documents(table: String, on connection: SQLiteConnection) throws(FirestoreError) -> [Document] {
        let statement = try connection.statement(
            "SELECT name, fields, create_time, update_time FROM \"\(table)\" ORDER BY name")
        defer { statement.reset() }
        var documents: [Document] = []
        while try statement.step(doing: "reading the rows of \(table)") {
            let name = statement.text(0) ?? ""
            let place = "SQLite mirror \(connection.path) table \(table) row \(name)"
            let fields: [String: FirestoreValue]
            do {
                guard case .object(let members) = try JSONValue.parse(statement.text(1) ?? "") else {
                    throw FirestoreError(code: .dataLoss, message: "\(place): fields is not a JSON object")
                }
                fields = try FirestoreValue.decodeFields(members)
            } catch let error as FirestoreError {
                throw FirestoreError(code: .dataLoss, message: "\(place): fields: \(error.message)")
            } catch {
                throw FirestoreError(code: .dataLoss, message: "\(place): fields: \(error)")
            }
            let createTime = try statement.text(2).map { (text) throws(FirestoreError) in
                try MirrorTimeText.time(text, what: "\(place): create_time")
            }
            let updateTime = try MirrorTimeText.time(statement.text(3) ?? "", what: "\(place): update_time")
            documents.append(Document(name: name, fields: fields, createTime: createTime, updateTime: updateTime))
        }
        return documents
    }

    /// Deletes the tombstones of `table` removed before `time`; returns how many.
    static func pruneTombstones(
        removedBefore time: Timestamp, table: String, on connection: SQLiteConnection
    ) throws(FirestoreError) -> Int {
        try connection.transaction(doing: "pruning the tombstones of \(table)") { () throws(FirestoreError) in
            let before = connection.rowsChanged
            let statement = try connection.statement("DELETE FROM \"\(table)_tombstones\" WHERE removed_at < ?")
            try statement.bind(1, text: MirrorTimeText.text(time))
            try statement.run(doing: "pruning the tombstones of \(table)")
            return Int(connection.rowsChanged - before)
        }
    }

    /// The one text value `sql` gives with `name` bound, or `nil` for no row.
    private static func single(
        _ sql: String, _ name: String, _ connection: SQLiteConnection, doing: String
    ) throws(FirestoreError) -> String? {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        try statement.bind(1, text: name)
        guard try statement.step(doing: "\(doing) of \(name)") else { return nil }
        return statement.text(0)
    }
}
