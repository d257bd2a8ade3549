import FirestoreREST
import Foundation

/// `firestore-feed query COLLECTION_PATH`: runs a query once, printing one JSON line per document.
enum QueryCommand {
    static let spec = CommandSpec(
        usage: ["query COLLECTION_PATH [options]"],
        abstract: """
            Runs a query once and prints one JSON line per document:
            {"createTime","data","id","path","updateTime"}
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + [
            .flag(
                "--dry-run",
                help: """
                    print the runQuery request as one JSON line
                    ({"body","method","path"}) and send nothing
                    """)
        ])
    static let help = spec.help

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        guard reader.positionals.count == 1, let collectionPath = reader.positionals.first else {
            throw .usage("query needs exactly one COLLECTION_PATH", help: help)
        }
        let options = try QueryOptions(reader, help: help)
        try options.check(collectionPath: collectionPath, help: help)
        let firestore: Firestore
        if reader.has("--dry-run") {
            // A dry run needs no server and no credentials: the request is only printed.
            let host = try ConnectionOptions.emulatorHost(reader, help: help) ?? "127.0.0.1:8080"
            let project = ConnectionOptions.emulatorProject(reader, where: "in the dry run")
            do {
                firestore = try Firestore.emulator(
                    host: host, projectID: project, databaseID: ConnectionOptions.databaseID(reader))
            } catch {
                throw .usage(error.message, help: help)
            }
        } else {
            firestore = try await CassetteOptions.firestore(reader, help: help)
        }
        let query = options.query(firestore, collectionPath: collectionPath)
        let body: JSONValue
        let parent: ResourcePath
        do {
            body = try query.runQueryBody()
            parent = try query.parentPath()
        } catch {
            throw .usage(error.message, help: help)
        }
        if reader.has("--dry-run") {
            let name = firestore.database.resourceName(of: parent)
            let request: JSONValue = ["method": "POST", "path": .string("/v1/\(name):runQuery"), "body": body]
            await Console.output(request.serializedString())
            return
        }
        try await CLIError.runtimeErrors {
            let snapshot = try await query.getDocuments()
            for document in snapshot.documents {
                await Console.output(OutputFormat.documentJSON(document).serializedString())
            }
        }
    }
}
