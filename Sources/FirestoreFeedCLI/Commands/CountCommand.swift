import FirestoreREST

/// `firestore-feed count COLLECTION_PATH`: prints how many documents a query matches (runAggregationQuery).
package struct CountCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "count",
        usage: ["COLLECTION_PATH [options]"],
        summary: "print how many documents a query matches",
        abstract: "Prints the number of documents the query matches (a COUNT aggregation).",
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options)

    let query: QueryOptions
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        query = try QueryOptions(parsing: reader, command: "count")
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try query.validate()
        try connection.validate()
    }

    package func run() async throws(CLIError) {
        let aggregate = query.query(on: try await connection.makeClient()).count
        do {
            _ = try aggregate.structuredAggregationQuery()
        } catch {
            throw .usage(error.message)
        }
        try await CLIError.runtimeErrors {
            let snapshot = try await aggregate.getAggregation()
            await Console.output(String(snapshot.count ?? 0))
            if (snapshot.count ?? 0) == 0, let note = ConnectionContext.emptyResultNote { Console.error(note) }
        }
    }
}
