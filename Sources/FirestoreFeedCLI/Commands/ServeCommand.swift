import FirestoreFeed

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `firestore-feed serve COLLECTION_PATH`: a query's result as a live list on the web: `GET /events` is its
/// `text/event-stream` (a ``LiveList``'s events), `GET /` a page that shows it (``LiveListPage``).
package struct ServeCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "serve",
        usage: ["COLLECTION_PATH [options]"],
        summary: "serve a query as a live list over server-sent events, with a page",
        abstract: """
            Serves the query's result over HTTP/1.1 until SIGTERM or SIGINT (then it exits 0).
            GET /events is a text/event-stream: a "reset" event with the whole list (REST
            documents, in query order), then a "patch" event per snapshot (FirebaseUI's
            FUISnapshotArrayDiff: deleted, inserted, moved, changed, with indexes), each with an
            id; a client that reconnects with Last-Event-ID (or ?lastEventId=N) gets exactly
            the events it missed, or a reset when the id is older than the replay log. GET /
            is a page (plain HTML and JavaScript) that shows the list live. A client more than
            --client-buffer events behind is cut (a comment line says why) and reconnects with
            its id. At most --max-clients connections at once; one more gets 503. Prints the
            page's URL on stdout once listening.
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options
            + FeedModeOptions.options + [
                .value(
                    "--interval", "SECONDS",
                    help: "time between polls with --mode keys|full|delta or after a fallback (default 1)"),
                .value("--host", "ADDRESS", help: "IPv4 address to listen on (default 127.0.0.1; 0.0.0.0: all)"),
                .value("--port", "P", help: "port to listen on (default 8080; 0: a free port, printed)"),
                .value(
                    "--token", "T",
                    help: """
                        require the bearer token T: Authorization: Bearer T, or ?token=T
                        (EventSource cannot set headers); 401 without it
                        """),
                .value(
                    "--max-clients", "N",
                    help: "serve at most N connections at once (one thread each); one more gets 503 (default 256)"),
                .value(
                    "--client-buffer", "N",
                    help: "cut a client more than N events behind; it reconnects with its id (default 256)"),
                .value(
                    "--replay-events", "N",
                    help: "keep the last N events for clients that reconnect (default 1000)"),
            ])

    let query: QueryOptions
    let mode: FeedModeOptions
    /// `--interval`: between polls, 1 s by default.
    let interval: Duration
    let host: String
    let port: Int
    let token: String?
    let maxClients: Int
    let clientBuffer: Int
    let replayEvents: Int
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        query = try QueryOptions(parsing: reader, command: "serve")
        mode = try FeedModeOptions(parsing: reader)
        interval = try reader.seconds("--interval", in: 0.01...86_400) ?? .seconds(1)
        host = try reader.nonEmpty("--host", "an IPv4 address") ?? "127.0.0.1"
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else {
            throw ValidationError("--host \"\(host)\": expected an IPv4 address such as 127.0.0.1 or 0.0.0.0")
        }
        port = try reader.integer("--port", in: 0...65_535) ?? 8080
        token = try reader.nonEmpty("--token", "a token")
        maxClients = try reader.integer("--max-clients", in: 1...100_000) ?? 256
        clientBuffer = try reader.integer("--client-buffer", in: 1...1_000_000) ?? 256
        replayEvents = try reader.integer("--replay-events", in: 1...10_000_000) ?? 1000
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try mode.validate()
        try query.validate()
        try connection.validate()
    }
}
