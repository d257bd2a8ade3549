import FirestoreREST

/// `firestore-feed delete PATH [--recursive]`: deletes a document, or with `--recursive` a document or a
/// collection and everything below it.
enum DeleteCommand {
    static let spec = CommandSpec(
        usage: ["delete DOCUMENT_PATH [options]", "delete PATH --recursive [options]"],
        abstract: """
            Deletes the document (deleting a missing document succeeds) and prints
            {"commitTime","id","path"}. Its subcollections stay unless --recursive is given.
            With --recursive, PATH may also be a collection: every document at or below it is
            deleted, subcollections first, found with listDocuments (missing documents too)
            and listCollectionIds, in commits of up to 500 deletes; prints {"deleted","path"}.
            Each commit is atomic; a failed one ends the command with exit 1, saying how many
            documents the commits before it deleted.
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
        var deletedBefore = 0
        do {
            let deleted = try await firestore.recursiveDelete(parsed) { deletedBefore = $0 }
            await Console.output(
                (["deleted": .integer(Int64(deleted)), "path": .string(path)] as JSONValue).serializedString())
        } catch {
            let failure = (error as? FirestoreError) ?? FirestoreError(code: .unknown, message: "\(error)")
            throw .runtime(
                FirestoreError(
                    code: failure.code,
                    message: failure.message + " (\(deletedBefore) documents at or below \(path) were deleted before)",
                    httpStatus: failure.httpStatus))
        }
    }
}
