import FirestoreREST

/// `firestore-feed create DOCUMENT_PATH JSON`: creates a document that must not exist, as `create(_:)`.
package struct CreateCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "create",
        usage: ["DOCUMENT_PATH JSON [options]"],
        summary: "create a document that must not exist",
        abstract: """
            Creates the document with the fields of JSON (plain JSON values, as set takes them);
            fails with already-exists (exit 1) when it exists. Prints one JSON line:
            {"id","path","updateTime"}.
            """,
        options: WriteConnection.options)

    let write: DocumentWrite

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        write = try DocumentWrite(parsing: reader, command: "create")
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
