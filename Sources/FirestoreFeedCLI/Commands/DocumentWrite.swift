import FirestoreREST

/// What the write commands (`set`, `update`, `create`, `add`, `delete`) share: reading `PATH JSON`, checking
/// the path before anything is sent, committing the write and printing its result as one JSON line.
enum DocumentWrite {
    /// `--server-timestamp FIELD`, taken by the commands that write fields (`set`, `update`, `create`, `add`,
    /// `import`).
    static let serverTimestampOption = OptionSpec.value(
        "--server-timestamp", "FIELD",
        help: """
            also set FIELD to the server's time of the write (the library's
            settingServerTimestamp(on:); what watch --mode delta tracks)
            """)

    /// The client of a write command: ``ConnectionOptions/firestore(_:help:transport:)``, stamping every write with
    /// the server's time in the field `--server-timestamp` names, when given.
    /// - Throws: ``CLIError/usage(_:help:)`` for an invalid field path, and the errors of the connection.
    static func firestore(_ reader: ArgumentReader, help: String) async throws(CLIError) -> Firestore {
        let field = reader.value("--server-timestamp")
        if let field, field.isEmpty { throw .usage("--server-timestamp needs a field path", help: help) }
        let db = try await ConnectionOptions.firestore(reader, help: help)
        guard let field else { return db }
        do {
            return try db.settingServerTimestamp(on: field)
        } catch {
            throw .usage("--server-timestamp \"\(field)\": \(error.message)", help: help)
        }
    }

    /// The two positionals `PATH JSON`, the path checked to be a document (`collection: false`) or a
    /// collection path, and JSON read by ``PlainJSONArgument/fields(_:what:)``.
    /// - Throws: ``CLIError/usage(_:help:)`` for another number of arguments, a bad path or bad JSON.
    static func pathAndFields(
        _ reader: ArgumentReader, command: String, collection: Bool = false, help: String
    ) throws(CLIError) -> (path: String, fields: [String: FirestoreValue]) {
        let kind = collection ? "COLLECTION_PATH" : "DOCUMENT_PATH"
        guard reader.positionals.count == 2 else {
            throw .usage("\(command) needs \(kind) and JSON, e.g. '{\"name\":\"Apple\"}'", help: help)
        }
        let path = reader.positionals[0]
        try PathArgument.check(path, collection: collection, help: help)
        do {
            return (path, try PlainJSONArgument.fields(reader.positionals[1], what: "\(command) \(path)"))
        } catch {
            throw .usage(error.message, help: help)
        }
    }

    /// Adds one write to a new batch with `add` (encoding it, so data Firestore refuses is a usage error
    /// before anything is sent), commits it and prints `{"id","path","updateTime"}`.
    /// - Throws: ``CLIError/usage(_:help:)`` for data the library refuses; ``CLIError/runtime(_:)`` for the
    ///   server's or the transport's error (`not-found` for an update of a missing document, `already-exists`
    ///   for a create of an existing one).
    static func commit(
        _ reference: DocumentReference, command: String, help: String,
        _ add: (WriteBatch) throws(FirestoreError) -> Void
    ) async throws(CLIError) {
        let batch = reference.firestore.batch()
        do {
            try add(batch)
        } catch {
            throw .usage(error.message, help: help)
        }
        let response: CommitResponse
        do {
            response = try await reference.firestore.commit(batch.writes)
        } catch let error as FirestoreError {
            throw .runtime(explained(error, reference, command: command))
        } catch {
            throw .runtime(FirestoreError(wrapping: error))
        }
        await Console.output(
            OutputFormat.writeJSON(reference, updateTime: response.updateTimes.first ?? nil).serializedString())
    }

    /// The refusal a write command expects, in its own words before the server's (whose wording differs between
    /// the emulator and production): `not-found` for an update of a missing document, `already-exists` for a
    /// create of an existing one. Other errors as they are.
    static func explained(_ error: FirestoreError, _ reference: DocumentReference, command: String) -> FirestoreError {
        let words: String
        switch (error.code, command) {
        case (.notFound, "update"): words = "no document at \(reference.path) to update (set creates one)"
        case (.alreadyExists, "create"), (.alreadyExists, "add"):
            words = "\(reference.path) already exists (set replaces it)"
        default: return error
        }
        return FirestoreError(
            code: error.code, message: words + "; the server said: " + error.message,
            httpStatus: error.httpStatus)
    }
}
