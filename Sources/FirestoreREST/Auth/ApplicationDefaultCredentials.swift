import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Application Default Credentials: finds credentials the way every Google Cloud client library does
/// (https://cloud.google.com/docs/authentication/application-default-credentials):
///
/// 1. `GOOGLE_APPLICATION_CREDENTIALS`: the credentials file it names (a file that cannot be read is an error,
///    not a reason to look further);
/// 2. the gcloud user file `application_default_credentials.json` in `$CLOUDSDK_CONFIG`, else in
///    `$HOME/.config/gcloud`, written by `gcloud auth application-default login`;
/// 3. the metadata server (`GCE_METADATA_HOST` or `metadata.google.internal`).
///
/// A credentials file is read according to its `type`: `service_account` → ``ServiceAccountCredentials``,
/// `authorized_user` → ``AuthorizedUserCredentials``. Other types (`external_account`,
/// `impersonated_service_account`, `external_account_authorized_user`, ...) are rejected as unsupported.
public enum ApplicationDefaultCredentials {
    /// The environment variable naming a credentials file.
    package static let credentialsFileVariable = "GOOGLE_APPLICATION_CREDENTIALS"
    /// The credential file types this package reads.
    package static let supportedTypes = ["service_account", "authorized_user"]

    /// Where the credentials come from.
    public enum Source: Sendable, Hashable {
        /// The file named by `GOOGLE_APPLICATION_CREDENTIALS`.
        case environmentFile(path: String)
        /// The gcloud application-default user file.
        case gcloudFile(path: String)
        /// The metadata server at `host`.
        case metadataServer(host: String)
    }

    /// The source step 1 to 3 above select, without reading any file: the first whose condition holds
    /// (`GOOGLE_APPLICATION_CREDENTIALS` set and non-empty; the gcloud file exists; otherwise the metadata
    /// server).
    public static func source(environment: [String: String] = ProcessInfo.processInfo.environment) -> Source {
        if let path = environment[credentialsFileVariable], !path.isEmpty {
            return .environmentFile(path: path)
        }
        if let path = gcloudFilePath(environment: environment), FileManager.default.fileExists(atPath: path) {
            return .gcloudFile(path: path)
        }
        return .metadataServer(host: MetadataServerCredentials.hostFrom(explicit: nil, environment: environment))
    }

    /// `$CLOUDSDK_CONFIG/application_default_credentials.json`, else
    /// `$HOME/.config/gcloud/application_default_credentials.json`; `nil` when neither variable is set.
    package static func gcloudFilePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let folder = environment["CLOUDSDK_CONFIG"], !folder.isEmpty {
            return folder + "/application_default_credentials.json"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return home + "/.config/gcloud/application_default_credentials.json"
        }
        return nil
    }

    /// The credentials of the first source in the standard order.
    /// - Parameters:
    ///   - environment: the variables to consult (default: the process environment).
    ///   - transport: the transport for token requests; each provider's default when `nil`.
    /// - Throws: ``FirestoreError``: `.failedPrecondition` when the chosen file cannot be read, `.invalidArgument`
    ///   when it is malformed, `.unimplemented` for an unsupported `type`. Finding no file is not an error: the
    ///   metadata server is the last resort, and its first token request fails with `.unavailable` when there
    ///   is no metadata server.
    public static func find(
        environment: [String: String] = ProcessInfo.processInfo.environment, transport: (any HTTPTransport)? = nil
    ) throws(FirestoreError) -> any Credentials {
        switch source(environment: environment) {
        case .environmentFile(let path), .gcloudFile(let path):
            return try credentials(contentsOfFile: path, transport: transport)
        case .metadataServer(let host):
            return MetadataServerCredentials(host: host, environment: environment, transport: transport)
        }
    }

    /// The credentials in the file at `path`, chosen by its `type`.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the file cannot be read, `.invalidArgument` when
    ///   it is malformed, `.unimplemented` naming the type for an unsupported `type`.
    public static func credentials(contentsOfFile path: String, transport: (any HTTPTransport)? = nil)
        throws(FirestoreError) -> any Credentials
    {
        try credentials(file: CredentialsFile(contentsOfFile: path), transport: transport)
    }

    /// The credentials in credentials-file JSON, chosen by its `type`.
    /// - Throws: as ``credentials(contentsOfFile:transport:)``.
    public static func credentials(
        json: Data, source: String = "credentials JSON", transport: (any HTTPTransport)? = nil
    )
        throws(FirestoreError) -> any Credentials
    {
        try credentials(file: CredentialsFile(data: json, source: source), transport: transport)
    }

    static func credentials(file: CredentialsFile, transport: (any HTTPTransport)?) throws(FirestoreError)
        -> any Credentials
    {
        let type = try file.type
        switch type {
        case "service_account":
            return ServiceAccountCredentials(key: try ServiceAccountKey(file: file), transport: transport)
        case "authorized_user":
            return try AuthorizedUserCredentials(file: file, transport: transport)
        default:
            throw FirestoreError(
                code: .unimplemented,
                message: "credentials \(file.source): type \"\(type)\" is not supported "
                    + "(supported: \(supportedTypes.joined(separator: ", ")))")
        }
    }

    /// The project ID the credentials belong to, when known without a request: a service-account key's
    /// `project_id`. `nil` for other credentials.
    package static func knownProjectID(of credentials: any Credentials) -> String? {
        (credentials as? ServiceAccountCredentials)?.key.projectID
    }
}
