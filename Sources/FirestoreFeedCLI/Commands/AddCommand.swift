import FirestoreREST

/// `firestore-feed add COLLECTION_PATH JSON`: adds a document with an automatic ID, as `addDocument(data:)`.
enum AddCommand {
    static let spec = CommandSpec(
        usage: ["add COLLECTION_PATH JSON [options]"],
        abstract: """
            Adds a document with a new random 20-character ID to the collection, holding the
            fields of JSON (plain JSON values, as set takes them). Prints one JSON line with
            the new ID: {"id","path","updateTime"}.
            """,
        options: ConnectionOptions.options + [DocumentWrite.serverTimestampOption])
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        let (path, fields) = try DocumentWrite.pathAndFields(reader, command: "add", collection: true, help: help)
        let reference = try await DocumentWrite.firestore(reader, help: help).collection(path).document()
        try await DocumentWrite.commit(reference, command: "add", help: help) { (batch) throws(FirestoreError) in
            try batch.create([String: WriteValue](fields), forDocument: reference)
        }
    }
}
