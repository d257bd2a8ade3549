import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Firestore {
    /// A client configured the way the Firebase and Google Cloud server SDKs configure themselves:
    ///
    /// - `FIRESTORE_EMULATOR_HOST` set: the emulator there, with the owner token (real credentials are never
    ///   sent to an emulator; `AuthorizationPathTests`), exactly as ``emulator(host:projectID:databaseID:transport:)``;
    /// - otherwise production Firestore with Application Default Credentials
    ///   (``ApplicationDefaultCredentials/find(environment:transport:)``: `GOOGLE_APPLICATION_CREDENTIALS`, the
    ///   gcloud user file, the metadata server;
    ///   https://cloud.google.com/docs/authentication/application-default-credentials).
    ///
    /// The project is `projectID` when given, else `GOOGLE_CLOUD_PROJECT`, else `GCLOUD_PROJECT`, else the
    /// service-account key's `project_id`, else (metadata-server credentials only) the metadata server's
    /// `project/project-id`.
    ///
    /// - Parameters:
    ///   - projectID: the project, or `nil` to discover it as above.
    ///   - databaseID: the database, `(default)` unless a named database is used.
    ///   - environment: the variables to consult (default: the process environment).
    ///   - transport: the transport for Firestore requests (a ``CurlTransport`` by default; a transport of your
    ///     own means REST and polling, ``HTTPTransport``); token requests use each credential provider's own
    ///     default transport.
    ///   - retryPolicy: when failed idempotent calls are retried (production only; the emulator gets
    ///     ``RetryPolicy/none``, as from ``emulator(host:projectID:databaseID:transport:)``).
    /// - Throws: ``FirestoreError``: as ``ApplicationDefaultCredentials/find(environment:transport:)``;
    ///   `.failedPrecondition` when no project ID can be found; `.invalidArgument` for a malformed ID or
    ///   emulator host; the metadata server's error when the project ID is asked from it.
    public static func applicationDefault(
        projectID: String? = nil, databaseID: String = "(default)",
        environment: [String: String] = ProcessInfo.processInfo.environment, transport: (any HTTPTransport)? = nil,
        retryPolicy: RetryPolicy = .default
    ) async throws -> Firestore {
        let namedProject =
            [projectID, environment["GOOGLE_CLOUD_PROJECT"], environment["GCLOUD_PROJECT"]]
            .compactMap { $0 }.first { !$0.isEmpty }
        if let host = environment["FIRESTORE_EMULATOR_HOST"], !host.isEmpty {
            guard let namedProject else {
                throw FirestoreError(
                    code: .failedPrecondition,
                    message: "no project ID for the emulator at \(host): pass projectID or set GOOGLE_CLOUD_PROJECT")
            }
            return try emulator(host: host, projectID: namedProject, databaseID: databaseID, transport: transport)
        }
        let credentials = try ApplicationDefaultCredentials.find(environment: environment)
        var project = namedProject ?? ApplicationDefaultCredentials.knownProjectID(of: credentials)
        if project == nil, let metadata = credentials as? MetadataServerCredentials {
            project = try await metadata.projectID()
        }
        guard let project else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "no project ID: pass projectID, set GOOGLE_CLOUD_PROJECT, or use a service-account key "
                    + "with project_id (credentials: \(credentials))")
        }
        return try Firestore(
            projectID: project, databaseID: databaseID, credentials: credentials, transport: transport,
            retryPolicy: retryPolicy)
    }
}
