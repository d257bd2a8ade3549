import FirestoreREST

/// `firestore-feed export COLLECTION_PATH`: runs a query and prints one JSON line per document with its fields
/// as Firestore REST values, which `import` reads back to the same values.
enum ExportCommand {
    static let spec = CommandSpec(
        usage: ["export COLLECTION_PATH [options]"],
        abstract: """
            Runs a query once (the options of query) and prints one JSON line per document as the
            response arrives:
            {"createTime","fields","id","path","updateTime"}, "fields" holding Firestore REST
            values ({"integerValue":"52"}, {"doubleValue":"NaN"}, {"timestampValue":...},
            {"bytesValue":...}, {"referenceValue":...}, {"geoPointValue":...}, arrays, maps,
            vectors), so that 'import OTHER FILE' writes back exactly the same values.
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options)
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 1, let collectionPath = reader.positionals.first else {
            throw .usage("export needs exactly one COLLECTION_PATH", help: help)
        }
        let options = try QueryOptions(reader, help: help)
        try options.check(collectionPath: collectionPath, help: help)
        let firestore = try await CassetteOptions.firestore(reader, help: help)
        let query = options.query(firestore, collectionPath: collectionPath)
        try await CLIError.runtimeErrors {
            // Streamed (Query.stream()): each document is printed as it is decoded, so memory stays flat however
            // many documents the query returns (BENCHMARKS.md, export-memory).
            // A last-N query cannot be streamed (its last documents are known at the end): N documents at once.
            if query.limitType == .last, query.limit != nil {
                for document in try await query.getDocuments().documents {
                    await Console.output(OutputFormat.exportJSON(document).serializedString())
                }
                return
            }
            for try await document in query.stream() {
                await Console.output(OutputFormat.exportJSON(document).serializedString())
            }
        }
    }
}
