import FirestoreFeed

/// `firestore-feed mirror COLLECTION_PATH --sqlite FILE | --postgres URL`: a long-running service that keeps a query's result in a
/// store: a backfill at one read time in pages, then the Listen stream from that time, each change applied exactly
/// once with the feed's resume point in the store's own transaction.
package struct MirrorCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "mirror",
        usage: ["COLLECTION_PATH --sqlite FILE [options]", "COLLECTION_PATH --postgres URL [options]"],
        summary: "mirror a query into an SQLite or PostgreSQL table, keep it current",
        abstract: """
            Mirrors a query into a table and keeps it current until SIGTERM or SIGINT (then the
            transaction in hand is committed and the command exits 0). A new table is loaded first
            (the backfill): the query's result at one read time T, in pages of --page-size documents
            by document name, each page one transaction that also stores where the load got to, so a
            restarted mirror goes on after the last page at the same T. The Listen stream then starts
            from T: what changed while the load ran arrives as changes, nothing is missed or applied
            twice. A restarted mirror resumes from the resume point in the table's NAME_resume row.
            --postgres writes the same tables in a PostgreSQL database (the FirestorePostgres
            product's PostgresMirror); its password never appears in a message.
            A query with --order-by, --limit, --limit-to-last, --offset, a cursor or an inequality
            filter cannot be paged by name: its first snapshot loads it whole instead.
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + MirrorSinkOptions.options
            + [
                .value("--page-size", "N", help: "documents per backfill page and transaction (default 1000)"),
                .flag(
                    "--verbose",
                    help: """
                        print each page and each applied snapshot to stderr: documents,
                        lag behind the read time, rows per second, billed reads
                        """),
                .value(
                    "--group", "NAME",
                    help: """
                        mirror as a member of feed group NAME: each member applies the
                        shards it holds (sink.apply(shardSnapshot)), the table refusing a
                        member whose lease was taken over (the fencing token); no backfill
                        (each shard's first snapshot loads it); SIGTERM releases the leases
                        """),
            ] + Array(GroupOptions.options.dropFirst()) + [FailureLimit.option])

    let query: QueryOptions
    let sink: MirrorSinkOptions
    /// `--page-size N`: documents per backfill page.
    let pageSize: Int
    let verbose: Bool
    let group: GroupOptions
    let failureLimit: FailureLimit
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        query = try QueryOptions(parsing: reader, command: "mirror")
        sink = try MirrorSinkOptions(parsing: reader)
        pageSize = try reader.positiveInteger("--page-size") ?? 1000
        verbose = reader.has("--verbose")
        group = try GroupOptions(parsing: reader)
        failureLimit = try FailureLimit(parsing: reader)
        connection = try FirestoreConnection(parsing: reader)
    }

    /// The sink in a line, a PostgreSQL URL's password redacted (`PostgreSQL postgresql://u:***@host/db, table t`).
    package var sinkDescription: String { sink.description }

    /// Opens the sink (its tables made when missing), as `run()` does before reading anything.
    /// - Throws: the sink's error (a PostgreSQL server named with its password redacted).
    package func openSink() async throws -> any FeedSink { try await sink.open() }

    package func validate() throws(ValidationError) {
        try group.validate()
        try query.validate()
        try connection.validate()
    }
}
