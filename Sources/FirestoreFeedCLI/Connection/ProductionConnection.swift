import FirestoreREST
import Foundation

/// Production Firestore for a command with no emulator named: credentials from `--credentials FILE` or
/// Application Default Credentials (https://cloud.google.com/docs/authentication/application-default-credentials),
/// the project from `--project`, `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`, the service-account key or the
/// metadata server (a discovered project is named on stderr; no project at all is an error), `--database`,
/// and `--endpoint` / `--ca-bundle` for a private endpoint or an inspecting proxy.
enum ProductionConnection {
    /// The production API root.
    static let defaultEndpoint = "https://firestore.googleapis.com"

    /// The production client.
    /// - Throws: ``CLIError/usage(_:help:)`` for a malformed `--endpoint`, an unreadable `--ca-bundle`, a
    ///   malformed ID or no project; ``CLIError/runtime(_:)`` when the credentials file cannot be read or is
    ///   malformed, or the metadata server cannot tell the project.
    static func firestore(
        _ reader: ArgumentReader, help: String, transport: (CurlTransport) throws(CLIError) -> any HTTPTransport
    ) async throws(CLIError) -> Firestore {
        let environment = ProcessInfo.processInfo.environment
        let endpoint = try endpoint(reader, help: help)
        var configuration = CurlTransport.Configuration()
        if let bundle = ConnectionOptions.optional(reader, "--ca-bundle") {
            guard FileManager.default.isReadableFile(atPath: bundle) else {
                throw .usage("--ca-bundle \"\(bundle)\": no readable file there", help: help)
            }
            configuration.caBundlePath = bundle
        }
        let file = ConnectionOptions.optional(reader, "--credentials")
        let source = ApplicationDefaultCredentials.source(environment: environment)
        var credentials: any Credentials
        do {
            // Reading and parsing the file (a key's PEM too) blocks: on a thread of its own.
            credentials = try await OwnThread.run("credentials") { () throws(FirestoreError) -> any Credentials in
                if let file { return try ApplicationDefaultCredentials.credentials(contentsOfFile: file) }
                return try ApplicationDefaultCredentials.find(environment: environment)
            }
        } catch {
            throw .runtime(error)
        }
        var projectID = ConnectionOptions.namedProject(reader)?.id
        if projectID == nil, let keyProject = ApplicationDefaultCredentials.knownProjectID(of: credentials) {
            var path = file ?? ""
            if file == nil, case .environmentFile(let named) = source { path = named }
            if file == nil, case .gcloudFile(let named) = source { path = named }
            Console.error(
                "note: using project \"\(keyProject)\" (the project_id of the service-account key \(path); "
                    + "--project or GOOGLE_CLOUD_PROJECT chooses another)")
            projectID = keyProject
        }
        if file == nil, case .metadataServer(let host) = source,
            let metadata = credentials as? MetadataServerCredentials
        {
            if projectID == nil {
                do {
                    let asked = try await metadata.projectID()
                    Console.error(
                        "note: using project \"\(asked)\" (the metadata server's at \(host); "
                            + "--project or GOOGLE_CLOUD_PROJECT chooses another)")
                    projectID = asked
                } catch let error as FirestoreError {
                    throw .runtime(MetadataHintCredentials.explained(error, host: host))
                } catch {
                    throw .runtime(FirestoreError(wrapping: error))
                }
            }
            credentials = MetadataHintCredentials(metadata, host: host)
        }
        guard let projectID else {
            throw .usage(
                "no project for production Firestore: pass --project ID or set GOOGLE_CLOUD_PROJECT "
                    + "(the credentials name none: \(credentials))", help: help)
        }
        let database: DatabaseID
        do {
            database = try DatabaseID(projectID: projectID, databaseID: ConnectionOptions.databaseID(reader))
        } catch {
            throw .usage(error.message, help: help)
        }
        return Firestore(
            database: database, baseURL: endpoint + "/v1/", credentials: credentials,
            transport: try transport(CurlTransport(configuration: configuration)), isEmulator: false)
    }

    /// `--endpoint` as `https://HOST[:PORT]` (a trailing `/` or `/v1` dropped), else the production root.
    /// - Throws: ``CLIError/usage(_:help:)`` for anything else: production is reached over https only.
    static func endpoint(_ reader: ArgumentReader, help: String) throws(CLIError) -> String {
        guard let text = ConnectionOptions.optional(reader, "--endpoint") else { return defaultEndpoint }
        var rest = Substring(text)
        let scheme = "https://"
        guard rest.lowercased().hasPrefix(scheme) else {
            throw .usage(
                "--endpoint \"\(text)\": expected https://HOST[:PORT] (production is reached over https; "
                    + "for the emulator use --emulator)", help: help)
        }
        rest = rest.dropFirst(scheme.count)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.hasSuffix("/v1") { rest = rest.dropLast(3) }
        let hasPort = rest.hasPrefix("[") ? rest.contains("]:") : rest.contains(":")
        guard let checked = EmulatorAddress.hostAndPort(hasPort ? String(rest) : rest + ":443"),
            !hasPort || checked == rest
        else {
            throw .usage("--endpoint \"\(text)\": expected https://HOST[:PORT]", help: help)
        }
        return scheme + rest
    }
}
