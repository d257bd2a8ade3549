import FirestoreREST

/// `firestore-feed query COLLECTION_PATH`: runs a query once, printing one JSON line per document.
package struct QueryCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "query",
        usage: ["COLLECTION_PATH [options]"],
        summary: "run a query once, one JSON line per document",
        abstract: """
            Runs a query once and prints one JSON line per document:
            {"createTime","data","id","path","updateTime"}
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + [
            .flag(
                "--dry-run",
                help: """
                    print the runQuery request as one JSON line
                    ({"body","method","path"}) and send nothing
                    """)
        ])

    let query: QueryOptions
    /// `--dry-run`: print the request instead of sending it.
    let dryRun: Bool
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        query = try QueryOptions(parsing: reader, command: "query")
        dryRun = reader.has("--dry-run")
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try query.validate()
        try connection.validate()
    }

    package func run() async throws(CLIError) {
        let firestore: Firestore
        if dryRun {
            // A dry run needs no server and no credentials: the request is only printed.
            firestore = try connection.dryRunClient()
        } else {
            firestore = try await connection.makeClient()
        }
        let query = query.query(on: firestore)
        let body: JSONValue
        let parent: ResourcePath
        do {
            body = try query.runQueryBody()
            parent = try query.parentPath()
        } catch {
            throw .usage(error.message)
        }
        if dryRun {
            let name = firestore.database.resourceName(of: parent)
            let request: JSONValue = ["method": "POST", "path": .string("/v1/\(name):runQuery"), "body": body]
            await Console.output(request.serializedString())
            return
        }
        try await CLIError.runtimeErrors {
            let snapshot = try await query.getDocuments()
            for document in snapshot.documents {
                await Console.output(OutputFormat.documentJSON(document).serializedString())
            }
            if snapshot.isEmpty, let note = ConnectionContext.emptyResultNote { Console.error(note) }
        }
    }
}
