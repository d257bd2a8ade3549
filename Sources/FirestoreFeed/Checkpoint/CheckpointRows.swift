import FirestoreREST

/// One checkpoint write: a snapshot the consumer finished with, as the changes from the checkpoint before it.
struct CheckpointCommit: Sendable {
    /// A document written (added or modified: the new version) or removed.
    enum Change: Sendable {
        case put(Document)
        case remove(name: String)
    }

    var key: String
    var query: String
    var source: String
    var deltaField: String?
    var readTime: Timestamp?
    var deltaWatermark: Timestamp?
    var lastKeysScan: Timestamp?
    var resumeToken: [UInt8]?
    var changes: [Change]
    /// How many documents the snapshot holds (checked against the rows when the checkpoint is loaded).
    var documentCount: Int
}

/// Reading and writing one key's rows (``CheckpointSchema``). On the store's executor (`BlockingExecutor`).
enum CheckpointRows {
    /// The feeds table is always read by a scan of the table itself (`NOT INDEXED`, O(keys)), never through the index
    /// on its key: a damaged index can then neither hide the key's row (read as "no checkpoint") nor let a write add
    /// a second row for it (issue 24).
    static let selectFeed = "SELECT \(FeedRow.columns) FROM feeds NOT INDEXED WHERE key = ?1"
    static let selectDocuments = "SELECT name, update_time, document, checksum FROM documents WHERE feed = ?1"
    static let countDocuments = "SELECT count(*) FROM documents WHERE feed = ?1"
    static let selectGeneration = "SELECT generation FROM feeds NOT INDEXED WHERE key = ?1"
    static let putDocument = """
        INSERT OR REPLACE INTO documents (feed, name, update_time, document, checksum) VALUES (?1, ?2, ?3, ?4, ?5)
        """
    static let removeDocument = "DELETE FROM documents WHERE feed = ?1 AND name = ?2"
    static let insertFeed = """
        INSERT INTO feeds (key, query, source, delta_field, read_time, delta_watermark, last_keys_scan,
            resume_token, document_count, generation, committed_at, checksum)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
        """
    static let updateFeed = """
        UPDATE feeds NOT INDEXED SET query = ?2, source = ?3, delta_field = ?4, read_time = ?5, delta_watermark = ?6,
            last_keys_scan = ?7, resume_token = ?8, document_count = ?9, generation = ?10, committed_at = ?11,
            checksum = ?12
        WHERE key = ?1
        """

    /// The checkpoint of `key`, or `nil` when the store holds none: the feed row and the document rows of one
    /// commit, read in one read transaction (``SQLiteConnection/readTransaction(doing:_:)``), so a feed writing the
    /// key meanwhile (another store on the file, another process) is never read half-way
    /// (`CheckpointConcurrentReadTests`).
    /// - Parameter afterFeedRow: runs between reading the feed row and the document rows (for tests: a commit of
    ///   another connection there must not be seen).
    /// - Throws: `FirestoreError` `.dataLoss` naming the file, the key and the row when a row's checksum, a
    ///   document's JSON or the document count is wrong, two feed rows hold the key, or the key has no feed row
    ///   while the store may hold one it cannot read (a feed row that fails its checksum, document rows of the key:
    ///   refused, never read as "no checkpoint"); SQLite's errors.
    /// - Complexity: O(n + k) rows for n documents and k keys.
    static func load(
        key: String, from connection: SQLiteConnection, afterFeedRow: () throws(FirestoreError) -> Void = {}
    ) throws(FirestoreError) -> FeedCheckpoint? {
        try connection.readTransaction(doing: "reading key \"\(key)\"") { () throws(FirestoreError) in
            try loadRows(key: key, from: connection, afterFeedRow: afterFeedRow)
        }
    }

    /// ``load(key:from:afterFeedRow:)`` inside its read transaction.
    private static func loadRows(
        key: String, from connection: SQLiteConnection, afterFeedRow: () throws(FirestoreError) -> Void
    ) throws(FirestoreError) -> FeedCheckpoint? {
        let path = connection.path
        func damaged(_ what: String) -> FirestoreError {
            FirestoreError(
                code: .dataLoss,
                message: "checkpoint store \(path): key \"\(key)\": \(what); the file is damaged, refusing to resume")
        }
        let feed = try connection.statement(selectFeed)
        defer { feed.reset() }
        try feed.bind(1, text: key)
        guard try feed.step(doing: "reading key \"\(key)\"") else {
            feed.reset()
            try checkNoFeedRow(key: key, in: connection, damaged: damaged)
            return nil
        }
        guard let row = FeedRow(feed) else { throw damaged("the feed row misses its query, source or commit time") }
        guard row.checksum == row.storedChecksum else { throw damaged("the feed row's checksum does not match") }
        guard try !feed.step(doing: "reading key \"\(key)\"") else { throw damaged("two feed rows hold the key") }
        func time(_ text: String?, _ column: String) throws(FirestoreError) -> Timestamp? {
            guard let text else { return nil }
            do {
                return try Timestamp(rfc3339: text)
            } catch {
                throw damaged("\(column) \"\(text.prefix(40))\" is not a time")
            }
        }
        let readTime = try time(row.readTime, "read_time")
        let watermark = try time(row.deltaWatermark, "delta_watermark")
        let lastScan = try time(row.lastKeysScan, "last_keys_scan")
        guard let committedAt = try time(row.committedAt, "committed_at") else {
            throw damaged("committed_at is missing")
        }
        feed.reset()
        try afterFeedRow()

        let rows = try connection.statement(selectDocuments)
        defer { rows.reset() }
        try rows.bind(1, text: key)
        var documents: [Document] = []
        while try rows.step(doing: "reading the documents of key \"\(key)\"") {
            let name = rows.bytes(0) ?? []
            let updateTime = rows.bytes(1)
            let json = rows.bytes(2) ?? []
            guard CheckpointChecksum.row([Array(key.utf8), name, updateTime, json]) == rows.integer(3) else {
                throw damaged("the row of document \(String(decoding: name, as: UTF8.self)) fails its checksum")
            }
            let document: Document
            do {
                document = try Document(restJSON: try JSONValue.parse(String(decoding: json, as: UTF8.self)))
            } catch {
                throw damaged("document \(String(decoding: name, as: UTF8.self)): \(error)")
            }
            guard Array(document.name.utf8) == name else {
                throw damaged("the row of \(String(decoding: name, as: UTF8.self)) holds \(document.name)")
            }
            documents.append(document)
        }
        guard documents.count == row.documentCount else {
            throw damaged("\(documents.count) document rows, the feed row says \(row.documentCount)")
        }
        return FeedCheckpoint(
            key: key, query: row.query, source: row.source, deltaField: row.deltaField, documents: documents,
            readTime: readTime, deltaWatermark: watermark, lastKeysScan: lastScan, resumeToken: row.resumeToken,
            committedAt: committedAt, generation: row.generation)
    }

    /// Refuses a store that may hold the key's feed row without it being readable: a feed row that fails its
    /// checksum (its key may be this one, damaged), or document rows of the key (written only with the key's feed
    /// row, in one transaction). O(keys + log n).
    private static func checkNoFeedRow(
        key: String, in connection: SQLiteConnection, damaged: (String) -> FirestoreError
    ) throws(FirestoreError) {
        _ = try FeedRow.all(in: connection, doing: "reading key \"\(key)\"")
        let count = try connection.statement(countDocuments)
        defer { count.reset() }
        try count.bind(1, text: key)
        let documents = try count.step(doing: "reading key \"\(key)\"") ? count.integer(0) : 0
        guard documents == 0 else { throw damaged("\(documents) document rows and no feed row") }
    }

    /// Writes `commit` in one transaction: one row per changed document and the feed row, after checking that the
    /// key is still at `expectedGeneration` (0: no checkpoint yet).
    /// - Returns: the new generation.
    /// - Throws: `FirestoreError` `.aborted` when the key moved on meanwhile (another writer); `.dataLoss` when
    ///   two feed rows hold the key; SQLite's errors (nothing is written then).
    /// - Complexity: O(c log n + k) for c changes and k keys: c + 2 rows read or written, whatever the snapshot's
    ///   size (the key's feed row is found by a scan of the feeds table, ``selectFeed``).
    static func write(
        _ commit: CheckpointCommit, expectedGeneration: Int64, committedAt: Timestamp, to connection: SQLiteConnection
    ) throws(FirestoreError) -> Int64 {
        let key = commit.key
        let doing = "writing key \"\(key)\""
        return try connection.transaction(doing: doing) { () throws(FirestoreError) -> Int64 in
            let current = try connection.statement(selectGeneration)
            try current.bind(1, text: key)
            let hasRow = try current.step(doing: doing)
            let generation = hasRow ? current.integer(0) : 0
            let isSecondRow = hasRow ? try current.step(doing: doing) : false
            current.reset()
            guard !isSecondRow else {
                throw FirestoreError(
                    code: .dataLoss,
                    message: "checkpoint store \(connection.path): key \"\(key)\": two feed rows hold the key; the "
                        + "file is damaged, not written")
            }
            guard generation == expectedGeneration else {
                throw FirestoreError(
                    code: .aborted,
                    message: "checkpoint store \(connection.path): key \"\(key)\" is at generation \(generation), "
                        + "this feed expected \(expectedGeneration): another writer moved it on; not written")
            }
            let keyBytes = Array(key.utf8)
            for change in commit.changes {
                switch change {
                case .put(let document):
                    let json = document.restJSON().serializedString()
                    let updateTime = document.updateTime?.rfc3339
                    let statement = try connection.statement(putDocument)
                    try statement.bind(1, text: key)
                    try statement.bind(2, text: document.name)
                    try statement.bind(3, text: updateTime)
                    try statement.bind(4, text: json)
                    let checksum = CheckpointChecksum.row([
                        keyBytes, Array(document.name.utf8), updateTime.map { Array($0.utf8) }, Array(json.utf8),
                    ])
                    try statement.bind(5, integer: checksum)
                    try statement.run(doing: doing)
                case .remove(let name):
                    let statement = try connection.statement(removeDocument)
                    try statement.bind(1, text: key)
                    try statement.bind(2, text: name)
                    try statement.run(doing: doing)
                }
            }
            let row = FeedRow(
                key: key, query: commit.query, source: commit.source, deltaField: commit.deltaField,
                readTime: commit.readTime?.rfc3339, deltaWatermark: commit.deltaWatermark?.rfc3339,
                lastKeysScan: commit.lastKeysScan?.rfc3339, resumeToken: commit.resumeToken,
                documentCount: Int64(commit.documentCount), generation: generation + 1,
                committedAt: committedAt.rfc3339)
            let statement = try connection.statement(generation == 0 ? insertFeed : updateFeed)
            try statement.bind(1, text: key)
            try statement.bind(2, text: row.query)
            try statement.bind(3, text: row.source)
            try statement.bind(4, text: row.deltaField)
            try statement.bind(5, text: row.readTime)
            try statement.bind(6, text: row.deltaWatermark)
            try statement.bind(7, text: row.lastKeysScan)
            try statement.bind(8, blob: row.resumeToken)
            try statement.bind(9, integer: row.documentCount)
            try statement.bind(10, integer: row.generation)
            try statement.bind(11, text: row.committedAt)
            try statement.bind(12, integer: row.checksum)
            try statement.run(doing: doing)
            return generation + 1
        }
    }

    /// Deletes the checkpoint of `key`, in one transaction.
    static func remove(key: String, from connection: SQLiteConnection) throws(FirestoreError) {
        let doing = "removing key \"\(key)\""
        try connection.transaction(doing: doing) { () throws(FirestoreError) in
            let documents = try connection.statement("DELETE FROM documents WHERE feed = ?1")
            try documents.bind(1, text: key)
            try documents.run(doing: doing)
            let feed = try connection.statement("DELETE FROM feeds NOT INDEXED WHERE key = ?1")
            try feed.bind(1, text: key)
            try feed.run(doing: doing)
        }
    }

    /// Every key with a checkpoint, sorted.
    /// - Throws: `FirestoreError` `.dataLoss` when a feed row fails its checksum.
    /// - Complexity: O(k log k) for k keys.
    static func keys(in connection: SQLiteConnection) throws(FirestoreError) -> [String] {
        try FeedRow.all(in: connection, doing: "listing the keys").map(\.key).sorted {
            Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
        }
    }
}
