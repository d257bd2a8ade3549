import FirestoreREST

/// `firestore-feed export COLLECTION_PATH`: runs a query and prints one JSON line per document with its fields
/// as Firestore REST values, which `import` reads back to the same values.
package struct ExportCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "export",
        usage: ["COLLECTION_PATH [options]"],
        summary: "print a query's documents as JSON lines that import reads back",
        abstract: """
            Runs a query once (the options of query) and prints one JSON line per document as the
            response arrives:
            {"createTime","fields","id","path","updateTime"}, "fields" holding Firestore REST
            values ({"integerValue":"52"}, {"doubleValue":"NaN"}, {"timestampValue":...},
            {"bytesValue":...}, {"referenceValue":...}, {"geoPointValue":...}, arrays, maps,
            vectors), so that 'import OTHER FILE' writes back exactly the same values.
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options)

    let query: QueryOptions
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        query = try QueryOptions(parsing: reader, command: "export")
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try query.validate()
        try connection.validate()
    }

    package func run() async throws(CLIError) {
        let exported = query.query(on: try await connection.makeClient())
        try await CLIError.runtimeErrors {
            // Streamed (Query.stream()): each document is printed as it is decoded, so memory stays flat however
            // many documents the query returns (BENCHMARKS.md, export-memory).
            // A last-N query cannot be streamed (its last documents are known at the end): N documents at once.
            if exported.limitType == .last, exported.limit != nil {
                let documents = try await exported.getDocuments().documents
                await Console.output(lines: documents.lazy.map { OutputFormat.exportJSON($0).serializedString() })
                return
            }
            let progress = ProgressMeter("export")
            defer { progress.finish() }
            for try await document in exported.stream() {
                await Console.output(OutputFormat.exportJSON(document).serializedString())
                progress.advance()
            }
        }
    }
}
