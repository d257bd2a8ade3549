import FirestoreREST
import Foundation

/// `firestore-feed query COLLECTION_PATH`: runs a query once, printing one JSON line per document.
package struct QueryCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "query",
        usage: ["COLLECTION_PATH [options]"],
        summary: "run a query once, one JSON line per document",
        abstract: """
            Runs a query once and prints one JSON line per document:
            {"createTime","data","id","path","updateTime"}
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + [
            .flag(
                "--dry-run",
                help: """
                    print the runQuery request as one JSON line
                    ({"body","method","path"}) and send nothing; with
                    --protocol grpc the RunQuery call, its body as
                    JSON and as the protobuf bytes sent (base64)
                    """)
        ])

    let query: QueryOptions
    /// `--dry-run`: print the request instead of sending it.
    let dryRun: Bool
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        query = try QueryOptions(parsing: reader, command: "query")
        dryRun = reader.has("--dry-run")
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try query.validate()
        try connection.validate()
    }

    package func run() async throws(CLIError) {
        let firestore: Firestore
        if dryRun {
            // A dry run needs no server and no credentials: the request is only printed.
            firestore = try connection.dryRunClient()
        } else {
            firestore = try await connection.makeClient()
        }
        let query = query.query(on: firestore)
        let structured: StructuredQuery
        let parent: ResourcePath
        do {
            structured = try query.structured()
            parent = try query.parentPath()
        } catch {
            throw .usage(error.message)
        }
        if dryRun {
            await Console.output(
                try Self.dryRunRequest(firestore, parent: parent, query: structured).serializedString())
            return
        }
        try await CLIError.runtimeErrors {
            let snapshot = try await query.getDocuments()
            let lines = snapshot.documents.lazy.map { OutputFormat.documentJSON($0).serializedString() }
            await Console.output(lines: lines)
            if snapshot.isEmpty, let note = ConnectionContext.emptyResultNote { Console.error(note) }
        }
    }

    /// What `--dry-run` prints: the REST request (`POST /v1/{parent}:runQuery` and its JSON body), or with
    /// `--protocol grpc` the gRPC call (`POST /google.firestore.v1.Firestore/RunQuery`), its `RunQueryRequest` in
    /// proto3 JSON (`parent` and `structuredQuery`) and the protobuf bytes sent, base64 (`protobuf`).
    /// - Throws: ``CLIError/usage(_:)`` for a query the protobuf codec cannot carry.
    static func dryRunRequest(_ firestore: Firestore, parent: ResourcePath, query: StructuredQuery)
        throws(CLIError) -> JSONValue
    {
        let name = firestore.database.resourceName(of: parent)
        let body: JSONValue = ["structuredQuery": query.restJSON]
        guard firestore.wireProtocol == .grpc else {
            return ["method": "POST", "path": .string("/v1/\(name):runQuery"), "body": body]
        }
        let bytes: [UInt8]
        do {
            bytes = try firestore.runQueryRequest(parent: parent, structuredQuery: query)
        } catch {
            throw .usage(error.message)
        }
        let message: JSONValue = ["structuredQuery": query.restJSON, "parent": .string(name)]
        return [
            "method": "POST", "path": .string(FirestoreGRPCMethod.runQuery), "body": message,
            "protobuf": .string(Data(bytes).base64EncodedString()),
        ]
    }
}
