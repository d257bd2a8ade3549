import FirestoreREST

/// The `feeds` row of one key (``CheckpointSchema``), as stored, with its checksum. On the store's
/// executor (`BlockingExecutor`).
struct FeedRow {
    /// The columns, in the order ``init(_:)`` reads them.
    static let columns = """
        key, query, source, delta_field, read_time, delta_watermark, last_keys_scan, resume_token, document_count, \
        generation, committed_at, checksum
        """

    var key: String
    var query: String
    var source: String
    var deltaField: String?
    var readTime: String?
    var deltaWatermark: String?
    var lastKeysScan: String?
    var resumeToken: [UInt8]?
    var documentCount: Int64
    var generation: Int64
    var committedAt: String
    /// The `checksum` column of a row that was read (`nil` for one about to be written).
    var storedChecksum: Int64? = nil

    /// The checksum of the row's content (every column but `checksum`).
    var checksum: Int64 {
        func utf8(_ text: String?) -> [UInt8]? { text.map { Array($0.utf8) } }
        return CheckpointChecksum.row([
            utf8(key), utf8(query), utf8(source), utf8(deltaField), utf8(readTime), utf8(deltaWatermark),
            utf8(lastKeysScan), resumeToken, utf8(String(documentCount)), utf8(String(generation)),
            utf8(committedAt),
        ])
    }

    /// Every feed row, each checked against its checksum: a scan of the table itself (`NOT INDEXED`), O(keys).
    /// - Throws: `FirestoreError` `.dataLoss` naming the file and the row's key (as stored) when a row misses a
    ///   column or fails its checksum.
    static func all(in connection: SQLiteConnection, doing: String) throws(FirestoreError) -> [FeedRow] {
        let statement = try connection.statement("SELECT \(columns) FROM feeds NOT INDEXED")
        defer { statement.reset() }
        var rows: [FeedRow] = []
        while try statement.step(doing: doing) {
            guard let row = FeedRow(statement), row.checksum == row.storedChecksum else {
                let key = statement.text(0).map { String(reflecting: $0) } ?? "NULL"
                throw FirestoreError(
                    code: .dataLoss,
                    message: "checkpoint store \(connection.path): the feed row of key \(key) fails its checksum; the "
                        + "file is damaged, refusing to read it")
            }
            rows.append(row)
        }
        return rows
    }
}

extension FeedRow {
    /// The row `statement` is on (a `SELECT` of ``columns``), or `nil` when it misses its key, query, source or
    /// commit time.
    init?(_ statement: SQLiteStatement) {
        guard let key = statement.text(0), let query = statement.text(1), let source = statement.text(2),
            let committedAt = statement.text(10)
        else { return nil }
        self.init(
            key: key, query: query, source: source, deltaField: statement.text(3), readTime: statement.text(4),
            deltaWatermark: statement.text(5), lastKeysScan: statement.text(6), resumeToken: statement.bytes(7),
            documentCount: statement.integer(8), generation: statement.integer(9), committedAt: committedAt,
            storedChecksum: statement.integer(11))
    }
}
