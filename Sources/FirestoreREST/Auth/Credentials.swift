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
///   order (`firestore-rest.md` §2.4);
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

/// The Firestore emulator's admin token: `Authorization: Bearer owner` bypasses security rules
/// (`firestore-rest.md` §2.2, field case E-29). It is sent only to an emulator: a client for production
/// refuses it (``CredentialsAudience/emulator``), and real credentials are never sent to an emulator.
public struct EmulatorOwnerCredentials: Credentials {
    public init() {}
    /// Always `Bearer owner`.
    public func authorizationHeader() async throws -> String? { "Bearer owner" }
    /// ``CredentialsAudience/emulator``.
    public var audience: CredentialsAudience { .emulator }
}

/// A fixed bearer token, e.g. one printed by `gcloud auth print-access-token`. It is never refreshed, so a
/// `401` is returned to the caller as `.unauthenticated`.
public struct StaticTokenCredentials: Credentials, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let token: String
    /// Where the token may be sent: ``CredentialsAudience/production`` for a real access token (default), or
    /// ``CredentialsAudience/emulator`` for a fake, unsigned ID token that an emulator judges by its security
    /// rules (field case E-29).
    public let audience: CredentialsAudience

    /// - Parameters:
    ///   - token: the access token without the `Bearer ` prefix.
    ///   - audience: where the token may be sent.
    public init(token: String, audience: CredentialsAudience = .production) {
        self.token = token
        self.audience = audience
    }

    /// `Bearer <token>`.
    public func authorizationHeader() async throws -> String? { "Bearer " + token }

    /// Never shows the token.
    public var description: String { "StaticTokenCredentials(token: <redacted>, audience: \(audience))" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// No children: `dump` shows no token.
    public var customMirror: Mirror { Mirror(self, children: ["token": "<redacted>", "audience": audience]) }
}

/// Sends no `Authorization` header (an emulator judged by its security rules as an anonymous client, or a
/// test double). Allowed towards any server.
public struct NoCredentials: Credentials {
    public init() {}
    /// Always `nil`.
    public func authorizationHeader() async throws -> String? { nil }
    /// ``CredentialsAudience/any``.
    public var audience: CredentialsAudience { .any }
}
