import FirestoreREST

/// `firestore-feed add COLLECTION_PATH JSON`: adds a document with an automatic ID, as `addDocument(data:)`.
package struct AddCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "add",
        usage: ["COLLECTION_PATH JSON [options]"],
        summary: "add a document with an automatic ID",
        abstract: """
            Adds a document with a new random 20-character ID to the collection, holding the
            fields of JSON (plain JSON values, as set takes them). Prints one JSON line with
            the new ID: {"id","path","updateTime"}.
            """,
        options: WriteConnection.options)

    let write: DocumentWrite

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        write = try DocumentWrite(parsing: reader, command: "add", collection: true)
    }

    package func validate() throws(ValidationError) {
        try write.validate()
    }

    package func run() async throws(CLIError) {
        try await write.commit { (batch, reference) throws(FirestoreError) in
            try batch.create([String: FieldValue](write.fields), forDocument: reference)
        }
    }
}
