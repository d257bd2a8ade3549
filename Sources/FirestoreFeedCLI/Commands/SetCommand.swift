import FirestoreREST

/// `firestore-feed set DOCUMENT_PATH JSON [--merge]`: writes a document, as `setData(_:merge:)`.
enum SetCommand {
    static let spec = CommandSpec(
        usage: ["set DOCUMENT_PATH JSON [options]"],
        abstract: """
            Writes the document with the fields of JSON, creating it if needed: the whole
            document is replaced, or with --merge only the fields JSON names change. JSON is
            an object of plain JSON values, read as --where reads VALUE: 3 is an integer, 3.0
            a double, "x" a string, [1,2] an array, {"a":1} a map. Prints one JSON line:
            {"id","path","updateTime"}.
            """,
        options: ConnectionOptions.options + [
            DocumentWrite.serverTimestampOption,
            .flag("--merge", help: "change only the fields JSON names (every leaf path), keep the others"),
        ])
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        let (path, fields) = try DocumentWrite.pathAndFields(reader, command: "set", help: help)
        let merge = reader.has("--merge")
        let reference = try await DocumentWrite.firestore(reader, help: help).document(path)
        try await DocumentWrite.commit(reference, command: "set", help: help) { (batch) throws(FirestoreError) in
            try batch.setData([String: WriteValue](fields), forDocument: reference, merge: merge)
        }
    }
}
