import FirestoreREST

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `firestore-feed bundle BUNDLE_ID COLLECTION_PATH`: runs a query (and reads documents) and writes a Firestore
/// data bundle of the results, as the Node SDK's `firestore.bundle(name)` builds one.
package struct BundleCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "bundle",
        usage: ["BUNDLE_ID COLLECTION_PATH [options]"],
        summary: "write a data bundle of a query's results (for loadBundle)",
        abstract: """
            Runs a query once (the options of query) and writes a Firestore data bundle named
            BUNDLE_ID holding it as a named query (--query-name, else COLLECTION_PATH) with its
            documents, plus each --document: what a web or mobile client loads with loadBundle()
            and runs with namedQuery(). The bundle goes to stdout as it is (no newline), or to
            --output FILE with one JSON line {"bundle","bytes","documents","output","query"} on
            stdout.
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + [
            .value("--query-name", "NAME", help: "the name a client runs the query by (default: COLLECTION_PATH)"),
            .value("--document", "DOCUMENT_PATH", help: "also bundle this document (repeatable)"),
            .value("--output", "FILE", help: "write the bundle to FILE instead of stdout"),
        ])

    let bundleID: String
    let query: QueryOptions
    /// `--document` paths, in order.
    let documentPaths: [String]
    /// `--query-name`, else COLLECTION_PATH.
    let queryName: String
    /// `--output FILE` as given; `nil`: stdout.
    let output: String?
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        guard reader.positionals.count == 2 else {
            throw ValidationError("bundle needs a BUNDLE_ID and a COLLECTION_PATH")
        }
        bundleID = reader.positionals[0]
        query = try QueryOptions(parsing: reader, collectionPath: reader.positionals[1])
        documentPaths = reader.all("--document")
        for path in documentPaths { try PathArgument.check(path, collection: false) }
        queryName = reader.value("--query-name") ?? query.collectionPath
        output = reader.value("--output")
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try query.validate()
        if output?.isEmpty == true { throw ValidationError("--output needs a file name") }
        try connection.validate()
    }

    package func run() async throws(CLIError) {
        let firestore = try await connection.makeClient()
        let bundled = query.query(on: firestore)
        try await CLIError.runtimeErrors {
            let bundle = firestore.bundle(bundleID)
            let snapshot = try await bundled.getDocuments()
            try bundle.add(queryName, snapshot)
            let documents = try await firestore.getAll(documentPaths.map { firestore.document($0) })
            for document in documents { try bundle.add(document) }
            let data = bundle.build()
            guard let output else {
                await ConsoleWriter.shared.write(Array(data), to: .output)
                return
            }
            do {
                try data.write(to: URL(fileURLWithPath: output))
            } catch {
                throw FirestoreError(code: .unavailable, message: "cannot write \(output): \(error)")
            }
            let documentCount = Set(snapshot.documents.map(\.reference.path) + documentPaths).count
            let summary: JSONValue = [
                "bundle": .string(bundleID), "bytes": .integer(Int64(data.count)),
                "documents": .integer(Int64(documentCount)), "output": .string(output),
                "query": .string(queryName),
            ]
            await Console.output(summary.serializedString())
        }
    }
}
