import FirestoreREST
import Synchronization

/// `firestore-feed delete PATH [--recursive]`: deletes a document, or with `--recursive` a document or a
/// collection and everything below it.
enum DeleteCommand {
    static let spec = CommandSpec(
        usage: ["delete DOCUMENT_PATH [options]", "delete PATH --recursive [options]"],
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
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 1, let path = reader.positionals.first else {
            throw .usage("delete needs exactly one PATH", help: help)
        }
        let recursive = reader.has("--recursive")
        let parsed: ResourcePath
        do {
            parsed = try ResourcePath(path)
        } catch {
            throw .usage(error.message, help: help)
        }
        if parsed.isCollection, !recursive {
            throw .usage(
                "\"\(path)\" is a collection: deleting it and everything below it needs --recursive", help: help)
        }
        let firestore = try await ConnectionOptions.firestore(reader, help: help)
        guard recursive else {
            let reference = firestore.document(path)
            try await CLIError.runtimeErrors {
                let response = try await firestore.commit([.delete(path: parsed, precondition: nil)])
                let line: JSONValue = [
                    "id": .string(reference.documentID), "path": .string(reference.path),
                    "commitTime": response.commitTime.map { .string($0.rfc3339) } ?? .null,
                ]
                await Console.output(line.serializedString())
            }
            return
        }
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
