import FirestoreREST

/// `firestore-feed get DOCUMENT_PATH`: prints one document as a JSON line.
enum GetCommand {
    static let spec = CommandSpec(
        usage: ["get DOCUMENT_PATH [options]"],
        abstract: """
            Prints the document as one JSON line ({"createTime","data","id","path","updateTime"}).
            A missing document is an error (exit 1, not-found).
            """,
        options: ConnectionOptions.options + CassetteOptions.options)
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 1, let documentPath = reader.positionals.first else {
            throw .usage("get needs exactly one DOCUMENT_PATH", help: help)
        }
        try PathArgument.check(documentPath, collection: false, help: help)
        let firestore = try await CassetteOptions.firestore(reader, help: help)
        let reference = firestore.document(documentPath)
        try await CLIError.runtimeErrors {
            let snapshot = try await reference.getDocument()
            guard snapshot.exists else {
                throw FirestoreError(code: .notFound, message: "no document at \(documentPath)")
            }
            await Console.output(OutputFormat.documentJSON(snapshot).serializedString())
        }
    }
}
