import FirestoreREST

/// `firestore-feed set DOCUMENT_PATH JSON [--merge]`: writes a document, as `setData(_:merge:)`.
package struct SetCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "set",
        usage: ["DOCUMENT_PATH JSON [options]"],
        summary: "write a document (--merge: only the fields given)",
        abstract: """
            Writes the document with the fields of JSON, creating it if needed: the whole
            document is replaced, or with --merge only the fields JSON names change. JSON is
            an object of plain JSON values, read as --where reads VALUE: 3 is an integer, 3.0
            a double, "x" a string, [1,2] an array, {"a":1} a map. Prints one JSON line:
            {"id","path","updateTime"}.
            """,
        options: WriteConnection.options + [
            .flag("--merge", help: "change only the fields JSON names (every leaf path), keep the others")
        ])

    let write: DocumentWrite
    /// `--merge`: change only the fields given.
    let merge: Bool

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        write = try DocumentWrite(parsing: reader, command: "set")
        merge = reader.has("--merge")
    }

    package func validate() throws(ValidationError) {
        try write.validate()
    }

    package func run() async throws(CLIError) {
        try await write.commit { (batch, reference) throws(FirestoreError) in
            try batch.setData([String: FieldValue](write.fields), forDocument: reference, merge: merge)
        }
    }
}
