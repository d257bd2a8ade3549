import FirestoreREST

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `firestore-feed bundle BUNDLE_ID COLLECTION_PATH`: runs a query (and reads documents) and writes a Firestore
/// data bundle of the results, as the Node SDK's `firestore.bundle(name)` builds one.
enum BundleCommand {
    static let spec = CommandSpec(
        usage: ["bundle BUNDLE_ID COLLECTION_PATH [options]"],
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
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 2 else {
            throw .usage("bundle needs a BUNDLE_ID and a COLLECTION_PATH", help: help)
        }
        let (bundleID, collectionPath) = (reader.positionals[0], reader.positionals[1])
        let options = try QueryOptions(reader, help: help)
        try options.check(collectionPath: collectionPath, help: help)
        let documentPaths = reader.all("--document")
        for path in documentPaths { try PathArgument.check(path, collection: false, help: help) }
        let queryName = reader.value("--query-name") ?? collectionPath
        let output = reader.value("--output")
        if output?.isEmpty == true { throw .usage("--output needs a file name", help: help) }
        let firestore = try await CassetteOptions.firestore(reader, help: help)
        let query = options.query(firestore, collectionPath: collectionPath)
        try await CLIError.runtimeErrors {
            let bundle = firestore.bundle(bundleID)
            let snapshot = try await query.getDocuments()
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
