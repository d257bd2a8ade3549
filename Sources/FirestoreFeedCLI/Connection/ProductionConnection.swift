import FirestoreREST
import Foundation

/// Production Firestore for a command with no emulator named: credentials from `--credentials FILE` or
/// Application Default Credentials (https://cloud.google.com/docs/authentication/application-default-credentials),
/// the project from `--project`, `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`, the service-account key or the
/// metadata server (a discovered project is named on stderr; no project at all is an error), `--database`,
/// and `--endpoint` / `--ca-bundle` for a private endpoint or an inspecting proxy.
struct ProductionConnection {
    /// The production API root.
    static let defaultEndpoint = "https://firestore.googleapis.com"

    let options: ConnectionOptions

    init(_ options: ConnectionOptions) {
        self.options = options
    }

    /// The production client.
    /// - Parameter transport: wraps the curl transport the client gets (a recording transport, for `--cassette`).
    /// - Throws: ``CLIError/usage(_:)`` for a malformed `--endpoint`, an unreadable `--ca-bundle`, a malformed
    ///   ID or no project; ``CLIError/runtime(_:)`` when the credentials file cannot be read or is malformed, or
    ///   the metadata server cannot tell the project.
    func client(
        transport: (CurlTransport) throws(CLIError) -> any HTTPTransport
    ) async throws(CLIError) -> Firestore {
        let endpoint: String
        do {
            endpoint = try Self.endpoint(options.endpoint)
        } catch {
            throw .usage(error.message)
        }
        var configuration = CurlTransport.Configuration()
        if let bundle = options.caBundle {
            guard FileManager.default.isReadableFile(atPath: bundle) else {
                throw .usage("--ca-bundle \"\(bundle)\": no readable file there")
            }
            configuration.caBundlePath = bundle
        }
        let (credentials, projectID) = try await credentialsAndProject()
        guard let projectID else {
            throw .usage(
                "no project for production Firestore: pass --project ID or set GOOGLE_CLOUD_PROJECT "
                    + "(the credentials name none: \(credentials))")
        }
        let database: DatabaseID
        do {
            database = try DatabaseID(projectID: projectID, databaseID: options.databaseID)
        } catch {
            throw .usage(error.message)
        }
        return Firestore(
            database: database, baseURL: endpoint + "/v1/", credentials: credentials,
            transport: try transport(CurlTransport(configuration: configuration)), isEmulator: false)
    }

    /// The credentials (`--credentials FILE`, else Application Default Credentials) and the project: the one
    /// named, else the key's, else the metadata server's (a discovered project is named on stderr), else `nil`.
    /// - Throws: ``CLIError/runtime(_:)`` when the credentials cannot be read or the metadata server cannot tell
    ///   the project.
    private func credentialsAndProject() async throws(CLIError) -> (any Credentials, String?) {
        let environment = ProcessInfo.processInfo.environment
        let file = options.credentials
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
        var projectID = options.namedProject?.id
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
        return (credentials, projectID)
    }

    /// `--endpoint` as `https://HOST[:PORT]` (a trailing `/` or `/v1` dropped), else the production root.
    /// - Throws: ``ValidationError`` for anything else: production is reached over https only.
    static func endpoint(_ text: String?) throws(ValidationError) -> String {
        guard let text else { return defaultEndpoint }
        var rest = Substring(text)
        let scheme = "https://"
        guard rest.lowercased().hasPrefix(scheme) else {
            throw ValidationError(
                "--endpoint \"\(text)\": expected https://HOST[:PORT] (production is reached over https; "
                    + "for the emulator use --emulator)")
        }
        rest = rest.dropFirst(scheme.count)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.hasSuffix("/v1") { rest = rest.dropLast(3) }
        let hasPort = rest.hasPrefix("[") ? rest.contains("]:") : rest.contains(":")
        guard let checked = EmulatorAddress.hostAndPort(hasPort ? String(rest) : rest + ":443"),
            !hasPort || checked == rest
        else {
            throw ValidationError("--endpoint \"\(text)\": expected https://HOST[:PORT]")
        }
        return scheme + rest
    }
}
