import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Credentials of a user signed in with `gcloud auth application-default login`: the `authorized_user` file
/// (`~/.config/gcloud/application_default_credentials.json`) holding `client_id`, `client_secret`,
/// `refresh_token` and optionally `quota_project_id` (the gcloud `application_default_credentials.json`;
/// https://developers.google.com/identity/protocols/oauth2/web-server#offline).
///
/// Access tokens come from the refresh-token grant: POST `grant_type=refresh_token&client_id=..&client_secret=..
/// &refresh_token=..` to `token_uri` (default `https://oauth2.googleapis.com/token`). They are cached, refreshed
/// ahead of expiry by a single request, and dropped after a `401`. The client secret, the refresh token and the
/// access tokens never appear in ``description``, reflection or errors.
public final class AuthorizedUserCredentials: Credentials, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The OAuth client (`client_id`; not a secret).
    public let clientID: String
    /// The project billed for API usage (`quota_project_id`), sent as `x-goog-user-project`.
    public let quotaProjectID: String?
    /// Where the refresh token is exchanged (`token_uri`).
    public let tokenURI: String
    private let cache: TokenCache

    /// Credentials from the parsed `authorized_user` JSON.
    /// - Parameters:
    ///   - json: the file's bytes.
    ///   - source: names the file in error messages.
    ///   - transport: the transport for token requests; a ``CurlTransport`` by default.
    ///   - refreshMargin: seconds before expiry at which the token is refreshed (default 300).
    ///   - now: the wall clock (for tests).
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the file and the member when the JSON is malformed,
    ///   `type` is not `authorized_user`, or `client_id`, `client_secret` or `refresh_token` is missing.
    public convenience init(
        json: Data, source: String = "authorized_user JSON", transport: (any HTTPTransport)? = nil,
        refreshMargin: Double = 300, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(FirestoreError) {
        try self.init(
            file: CredentialsFile(data: json, source: source), transport: transport, refreshMargin: refreshMargin,
            now: now)
    }

    /// Credentials from the `authorized_user` file at `path`.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the file cannot be read, otherwise as
    ///   ``init(json:source:transport:refreshMargin:now:)``.
    public convenience init(contentsOfFile path: String, transport: (any HTTPTransport)? = nil) throws(FirestoreError) {
        try self.init(file: CredentialsFile(contentsOfFile: path), transport: transport)
    }

    init(
        file: CredentialsFile, transport: (any HTTPTransport)?, refreshMargin: Double = 300,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(FirestoreError) {
        let type = try file.type
        guard type == "authorized_user" else {
            throw .invalidArgument("credentials \(file.source): type is \"\(type)\", not \"authorized_user\"")
        }
        let clientID = try file.string("client_id")
        let clientSecret = try file.string("client_secret")
        let refreshToken = try file.string("refresh_token")
        let tokenURI = try file.url("token_uri", default: OAuthTokenEndpoint.googleTokenURI)
        self.clientID = clientID
        self.tokenURI = tokenURI
        quotaProjectID = try file.optionalString("quota_project_id")
        let transport = transport ?? CurlTransport()
        cache = TokenCache(refreshMargin: refreshMargin, now: now) {
            try await OAuthTokenEndpoint.requestToken(
                url: tokenURI,
                form: [
                    ("grant_type", "refresh_token"), ("client_id", clientID), ("client_secret", clientSecret),
                    ("refresh_token", refreshToken),
                ],
                transport: transport, now: now)
        }
    }

    /// `Bearer <access token>`, from the cache or freshly obtained.
    /// - Throws: ``FirestoreError``: `.unauthenticated` when the refresh token was refused (`invalid_grant`:
    ///   run `gcloud auth application-default login` again), `.unavailable` when `token_uri` is unreachable.
    public func authorizationHeader() async throws -> String? {
        try await cache.currentToken().authorizationHeader
    }

    /// Drops the refused token.
    /// - Returns: `true`.
    public func invalidate(refusedHeader: String) async -> Bool {
        await cache.invalidate(refusedHeader: refusedHeader)
        return true
    }

    /// `AuthorizedUserCredentials(client_id: ..., client_secret: <redacted>, refresh_token: <redacted>)`.
    public var description: String {
        "AuthorizedUserCredentials(client_id: \(clientID), client_secret: <redacted>, refresh_token: <redacted>)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Shows the public members only.
    public var customMirror: Mirror {
        Mirror(self, children: ["clientID": clientID, "quotaProjectID": quotaProjectID as Any, "tokenURI": tokenURI])
    }
}
