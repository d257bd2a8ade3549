import FirestoreREST

/// `firestore-feed update DOCUMENT_PATH JSON`: changes named fields of an existing document, as
/// `updateData(_:)`.
enum UpdateCommand {
    static let spec = CommandSpec(
        usage: ["update DOCUMENT_PATH JSON [options]"],
        abstract: """
            Updates the fields JSON names in an existing document; the other fields stay.
            Each key of JSON is a field path as --where takes FIELD: dots reach into maps
            ({"stats.kcal":52}), a name with dots or spaces goes in backticks. Values are
            plain JSON, as set takes them. Fails with not-found (exit 1) when the document
            does not exist. Prints one JSON line: {"id","path","updateTime"}.
            """,
        options: ConnectionOptions.options + [DocumentWrite.serverTimestampOption])
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        let (path, fields) = try DocumentWrite.pathAndFields(reader, command: "update", help: help)
        guard !fields.isEmpty else {
            throw .usage("update \(path): JSON names no field to update", help: help)
        }
        var pairs: [(FieldPath, WriteValue)] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            do {
                pairs.append((try FieldPathArgument.fieldPath(key), WriteValue(value)))
            } catch {
                throw .usage("update \(path): key \"\(key)\": \(error.message)", help: help)
            }
        }
        let reference = try await DocumentWrite.firestore(reader, help: help).document(path)
        try await DocumentWrite.commit(reference, command: "update", help: help) { (batch) throws(FirestoreError) in
            try batch.updateData(pathsAndValues: pairs, forDocument: reference)
        }
    }
}
