import FirestoreREST

/// What the write commands (`set`, `update`, `create`, `add`) share: their `PATH JSON` arguments, checked
/// before anything is sent, the client they write through (``WriteConnection``), and committing the write with
/// its result printed as one JSON line.
struct DocumentWrite: Sendable {
    /// The command's name, in messages.
    let command: String
    /// The document path, or for `add` the collection path.
    let path: String
    /// Whether ``path`` is a collection's, in which a new document gets an automatic ID (`add`).
    let isCollection: Bool
    /// The fields of JSON.
    let fields: [String: FirestoreValue]
    let client: WriteConnection

    /// The two arguments `PATH JSON` of `command`, the path checked to be a document (`collection: false`) or
    /// a collection path, and JSON read by ``PlainJSONArgument/fields(_:what:)``; then the client's options.
    /// - Throws: ``ValidationError`` for another number of arguments, a bad path or bad JSON.
    init(parsing reader: ArgumentReader, command: String, collection: Bool = false) throws(ValidationError) {
        let kind = collection ? "COLLECTION_PATH" : "DOCUMENT_PATH"
        guard reader.positionals.count == 2 else {
            throw ValidationError("\(command) needs \(kind) and JSON, e.g. '{\"name\":\"Apple\"}'")
        }
        self.command = command
        path = reader.positionals[0]
        isCollection = collection
        try PathArgument.check(path, collection: collection)
        do {
            fields = try PlainJSONArgument.fields(reader.positionals[1], what: "\(command) \(path)")
        } catch {
            throw ValidationError(error.message)
        }
        client = try WriteConnection(parsing: reader)
    }

    /// - Throws: ``ValidationError`` for the client's options.
    func validate() throws(ValidationError) {
        try client.validate()
    }

    /// Connects, adds one write to a new batch with `add` for the document (a new one in the collection for
    /// `add`), encoding it, so data Firestore refuses is a usage error before anything is sent; then commits it
    /// and prints `{"id","path","updateTime"}`.
    /// - Throws: ``CLIError/usage(_:)`` for data the library refuses; ``CLIError/runtime(_:)`` for the server's
    ///   or the transport's error (`not-found` for an update of a missing document, `already-exists` for a
    ///   create of an existing one); and the errors of the connection.
    func commit(_ add: (WriteBatch, DocumentReference) throws(FirestoreError) -> Void) async throws(CLIError) {
        let firestore = try await client.makeClient()
        let reference = isCollection ? firestore.collection(path).document() : firestore.document(path)
        let batch = firestore.batch()
        do {
            try add(batch, reference)
        } catch {
            throw .usage(error.message)
        }
        let response: CommitResponse
        do {
            response = try await firestore.commit(batch.writes)
        } catch let error as FirestoreError {
            throw .runtime(Self.explained(error, reference, command: command))
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
        // The same error (its code, HTTP status or gRPC status, cause) in the command's words.
        var explained = error
        explained.message = words + "; the server said: " + error.message
        return explained
    }
}
