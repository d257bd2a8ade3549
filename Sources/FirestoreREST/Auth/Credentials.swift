import FirestoreWire

/// Supplies the `Authorization` header value for each request.
///
/// Implementations cache tokens; ``authorizationHeader()`` is called once per request attempt and must be
/// cheap when a token is cached. The providers:
/// - ``EmulatorOwnerCredentials``: `Bearer owner`, sent only to an emulator;
/// - ``StaticTokenCredentials``: a fixed token;
/// - ``ServiceAccountCredentials``: a service-account JSON key, RS256 JWT signed with OpenSSL, exchanged for an
///   access token (or sent as a self-signed JWT);
/// - ``AuthorizedUserCredentials``: a gcloud user's refresh token;
/// - ``MetadataServerCredentials``: the GCE / Cloud Run / GKE metadata server;
/// - ``ApplicationDefaultCredentials/find(environment:transport:)`` picks one of the last three in the standard
///   order (https://cloud.google.com/docs/authentication/application-default-credentials);
/// - ``NoCredentials``: no header.
///
/// Secrets (tokens, keys, refresh tokens, client secrets) never appear in a provider's `description`, its
/// reflection (`dump`), or in any error it throws.
public protocol Credentials: Sendable {
    /// The full header value (`Bearer ya29...`), or `nil` to send no `Authorization` header.
    /// - Throws: ``FirestoreError``: `.unauthenticated` when the token endpoint refused the grant,
    ///   `.unavailable` / `.deadlineExceeded` when it could not be reached.
    func authorizationHeader() async throws -> String?

    /// Which servers these credentials may be sent to. The client refuses to send ``CredentialsAudience/emulator``
    /// credentials to production, and ``CredentialsAudience/production`` credentials to an emulator.
    /// Default: ``CredentialsAudience/production``.
    var audience: CredentialsAudience { get }

    /// Called when the server answered `401 UNAUTHENTICATED` to a request that carried `refusedHeader`: forget
    /// that token, so the next ``authorizationHeader()`` fetches a new one.
    /// - Returns: whether a new token may be accepted, i.e. whether sending the request once more is worth it.
    ///   Default `false` (nothing to refresh).
    func invalidate(refusedHeader: String) async -> Bool

    /// The project billed for quota and API usage (sent as `x-goog-user-project`), for user credentials that
    /// name one (`quota_project_id`). Default `nil`.
    var quotaProjectID: String? { get }
}

extension Credentials {
    /// ``CredentialsAudience/production``: unknown credentials are treated as real ones.
    public var audience: CredentialsAudience { .production }

    /// `false`: a fixed token cannot be refreshed.
    public func invalidate(refusedHeader: String) async -> Bool { false }

    /// `nil`.
    public var quotaProjectID: String? { nil }
}
