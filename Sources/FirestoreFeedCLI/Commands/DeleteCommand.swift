import FirestoreREST
import Synchronization

/// `firestore-feed delete PATH [--recursive]`: deletes a document, or with `--recursive` a document or a
/// collection and everything below it.
package struct DeleteCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "delete",
        usage: ["DOCUMENT_PATH [options]", "PATH --recursive [options]"],
        summary: """
            delete a document (--recursive: and everything below it,
            or a whole collection)
            """,
        synopsis: "delete PATH",
        abstract: """
            Deletes the document (deleting a missing document succeeds) and prints
            {"commitTime","id","path"}. Its subcollections stay unless --recursive is given.
            With --recursive, PATH may also be a collection: every document at or below it is
            deleted (the library's recursiveDelete, as the server SDKs': found with
            listDocuments, missing documents too, and listCollectionIds; deleted through a
            BulkWriter, 20 deletes per batchWrite, several at once, transient failures
            retried); prints {"deleted","path"}, the number of documents deleted. The deletes
            are not atomic: when one fails after its retries, or a list fails, the command
            ends with exit 1, saying how many documents were deleted.
            """,
        options: ConnectionOptions.options + [
            .flag("--recursive", help: "delete every document at or below PATH, subcollections included")
        ])

    let path: String
    let parsed: ResourcePath
    /// `--recursive`: everything at or below the path.
    let recursive: Bool
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        guard reader.positionals.count == 1, let path = reader.positionals.first else {
            throw ValidationError("delete needs exactly one PATH")
        }
        self.path = path
        recursive = reader.has("--recursive")
        do {
            parsed = try ResourcePath(path)
        } catch {
            throw ValidationError(error.message)
        }
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        if parsed.isCollection, !recursive {
            throw ValidationError(
                "\"\(path)\" is a collection: deleting it and everything below it needs --recursive")
        }
        try connection.validate()
    }

    package func run() async throws(CLIError) {
        let firestore = try await connection.makeClient()
        if recursive {
            try await deleteRecursively(firestore)
        } else {
            try await deleteDocument(firestore)
        }
    }

    /// Deletes the one document and prints `{"commitTime","id","path"}`.
    private func deleteDocument(_ firestore: Firestore) async throws(CLIError) {
        let reference = firestore.document(path)
        try await CLIError.runtimeErrors {
            let response = try await firestore.commit([.delete(path: parsed, precondition: nil)])
            let line: JSONValue = [
                "id": .string(reference.documentID), "path": .string(reference.path),
                "commitTime": response.commitTime.map { .string($0.rfc3339) } ?? .null,
            ]
            await Console.output(line.serializedString())
        }
    }

    /// Deletes everything at or below the path and prints `{"deleted","path"}`; a failure says how many
    /// documents were deleted before it.
    private func deleteRecursively(_ firestore: Firestore) async throws(CLIError) {
        let deleted = Mutex(0)
        do {
            let writer = try firestore.bulkWriter()
            writer.onWriteResult { _, _ in deleted.withLock { $0 += 1 } }
            let count =
                parsed.isDocument
                ? try await firestore.recursiveDelete(firestore.document(path), bulkWriter: writer)
                : try await firestore.recursiveDelete(firestore.collection(path), bulkWriter: writer)
            await Console.output(
                (["deleted": .integer(Int64(count)), "path": .string(path)] as JSONValue).serializedString())
        } catch {
            let failure = FirestoreError(wrapping: error)
            let count = deleted.withLock { $0 }
            throw .runtime(
                FirestoreError(
                    code: failure.code,
                    message: failure.message + " (\(count) documents at or below \(path) were deleted)",
                    httpStatus: failure.httpStatus))
        }
    }
}
