import FirestoreREST

/// `firestore-feed get DOCUMENT_PATH`: prints one document as a JSON line.
package struct GetCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "get",
        usage: ["DOCUMENT_PATH [options]"],
        summary: "print one document as a JSON line",
        abstract: """
            Prints the document as one JSON line ({"createTime","data","id","path","updateTime"}).
            A missing document is an error (exit 1, not-found).
            """,
        options: ConnectionOptions.options + CassetteOptions.options)

    let documentPath: String
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        guard reader.positionals.count == 1, let documentPath = reader.positionals.first else {
            throw ValidationError("get needs exactly one DOCUMENT_PATH")
        }
        try PathArgument.check(documentPath, collection: false)
        self.documentPath = documentPath
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try connection.validate()
    }

    package func run() async throws(CLIError) {
        let reference = try await connection.makeClient().document(documentPath)
        try await CLIError.runtimeErrors {
            let snapshot = try await reference.getDocument()
            guard snapshot.exists else {
                // The server's answer (a 404 for the document), so the report names the project asked.
                throw FirestoreError(code: .notFound, message: "no document at \(documentPath)", httpStatus: 404)
            }
            await Console.output(OutputFormat.documentJSON(snapshot).serializedString())
        }
    }
}
