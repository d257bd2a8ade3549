import FirestoreREST

/// `firestore-feed count COLLECTION_PATH`: prints how many documents a query matches (runAggregationQuery).
enum CountCommand {
    static let help = """
        USAGE: firestore-feed count COLLECTION_PATH [options]

        Prints the number of documents the query matches (a COUNT aggregation).

        OPTIONS:
        \(ConnectionOptions.help)
        \(CassetteOptions.help)
        \(QueryOptions.help)
          -h, --help                 show this help
        """

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(
            arguments,
            valueFlags: ConnectionOptions.valueFlags.union(QueryOptions.valueFlags).union(CassetteOptions.valueFlags),
            switchFlags: QueryOptions.switchFlags, help: help)
        guard reader.positionals.count == 1, let collectionPath = reader.positionals.first else {
            throw .usage("count needs exactly one COLLECTION_PATH", help: help)
        }
        let options = try QueryOptions(reader, help: help)
        let firestore = try CassetteOptions.firestore(reader, help: help)
        let aggregate = options.query(firestore, collectionPath: collectionPath).count
        do {
            _ = try aggregate.structuredAggregationQuery()
        } catch {
            throw .usage(error.message, help: help)
        }
        do {
            let snapshot = try await aggregate.getAggregation()
            Console.output(String(snapshot.count ?? 0))
        } catch let error as FirestoreError {
            throw .runtime(error)
        } catch {
            throw .runtime(FirestoreError(code: .unknown, message: "\(error)"))
        }
    }
}
