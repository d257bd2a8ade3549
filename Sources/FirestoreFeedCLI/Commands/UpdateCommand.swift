import FirestoreREST

/// `firestore-feed update DOCUMENT_PATH JSON`: changes named fields of an existing document, as
/// `updateData(_:)`.
package struct UpdateCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "update",
        usage: ["DOCUMENT_PATH JSON [options]"],
        summary: "change fields of an existing document",
        abstract: """
            Updates the fields JSON names in an existing document; the other fields stay.
            Each key of JSON is a field path as --where takes FIELD: dots reach into maps
            ({"stats.kcal":52}), a name with dots or spaces goes in backticks. Values are
            plain JSON, as set takes them. Fails with not-found (exit 1) when the document
            does not exist. Prints one JSON line: {"id","path","updateTime"}.
            """,
        options: WriteConnection.options)

    let write: DocumentWrite
    /// The fields to change, by field path, in the order of their keys.
    let updates: [(FieldPath, FieldValue)]

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        let write = try DocumentWrite(parsing: reader, command: "update")
        guard !write.fields.isEmpty else {
            throw ValidationError("update \(write.path): JSON names no field to update")
        }
        self.write = write
        updates = try write.fields.sorted(by: { $0.key < $1.key }).map { (key, value) throws(ValidationError) in
            do throws(FirestoreError) {
                return (try FieldPathArgument.fieldPath(key), FieldValue(value))
            } catch {
                throw ValidationError("update \(write.path): key \"\(key)\": \(error.message)")
            }
        }
    }

    package func validate() throws(ValidationError) {
        try write.validate()
    }

    package func run() async throws(CLIError) {
        try await write.commit { (batch, reference) throws(FirestoreError) in
            try batch.updateData(pathsAndValues: updates, forDocument: reference)
        }
    }
}
