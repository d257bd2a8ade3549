import FirestoreREST

/// `firestore-feed create DOCUMENT_PATH JSON`: creates a document that must not exist, as `create(_:)`.
enum CreateCommand {
    static let spec = CommandSpec(
        usage: ["create DOCUMENT_PATH JSON [options]"],
        abstract: """
            Creates the document with the fields of JSON (plain JSON values, as set takes them);
            fails with already-exists (exit 1) when it exists. Prints one JSON line:
            {"id","path","updateTime"}.
            """,
        options: ConnectionOptions.options + [DocumentWrite.serverTimestampOption])
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        let (path, fields) = try DocumentWrite.pathAndFields(reader, command: "create", help: help)
        let reference = try await DocumentWrite.firestore(reader, help: help).document(path)
        try await DocumentWrite.commit(reference, command: "create", help: help) { (batch) throws(FirestoreError) in
            try batch.create([String: WriteValue](fields), forDocument: reference)
        }
    }
}
