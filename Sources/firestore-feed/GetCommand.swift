import FirestoreREST

/// `firestore-feed get DOCUMENT_PATH`: prints one document as a JSON line.
enum GetCommand {
    static let help = """
        USAGE: firestore-feed get DOCUMENT_PATH [options]

        Prints the document as one JSON line ({"createTime","data","id","path","updateTime"}).
        A missing document is an error (exit 1, not-found).

        OPTIONS:
        \(ConnectionOptions.help)
        \(CassetteOptions.help)
          -h, --help                 show this help
        """

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(
            arguments, valueFlags: ConnectionOptions.valueFlags.union(CassetteOptions.valueFlags), switchFlags: [],
            help: help)
        guard reader.positionals.count == 1, let documentPath = reader.positionals.first else {
            throw .usage("get needs exactly one DOCUMENT_PATH", help: help)
        }
        let firestore = try CassetteOptions.firestore(reader, help: help)
        let reference = firestore.document(documentPath)
        do {
            _ = try reference.resourcePath()
        } catch {
            throw .usage(error.message, help: help)
        }
        do {
            let snapshot = try await reference.getDocument()
            guard snapshot.exists else {
                throw FirestoreError(code: .notFound, message: "no document at \(documentPath)")
            }
            Console.output(OutputFormat.documentJSON(snapshot).serializedString())
        } catch let error as FirestoreError {
            throw .runtime(error)
        } catch {
            throw .runtime(FirestoreError(code: .unknown, message: "\(error)"))
        }
    }
}
