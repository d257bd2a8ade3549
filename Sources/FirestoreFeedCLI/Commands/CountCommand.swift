import FirestoreREST

/// `firestore-feed count COLLECTION_PATH`: prints how many documents a query matches (runAggregationQuery).
enum CountCommand {
    static let spec = CommandSpec(
        usage: ["count COLLECTION_PATH [options]"],
        abstract: "Prints the number of documents the query matches (a COUNT aggregation).",
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options)
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 1, let collectionPath = reader.positionals.first else {
            throw .usage("count needs exactly one COLLECTION_PATH", help: help)
        }
        let options = try QueryOptions(reader, help: help)
        try options.check(collectionPath: collectionPath, help: help)
        let firestore = try await CassetteOptions.firestore(reader, help: help)
        let aggregate = options.query(firestore, collectionPath: collectionPath).count
        do {
            _ = try aggregate.structuredAggregationQuery()
        } catch {
            throw .usage(error.message, help: help)
        }
        try await CLIError.runtimeErrors {
            let snapshot = try await aggregate.getAggregation()
            await Console.output(String(snapshot.count ?? 0))
        }
    }
}
