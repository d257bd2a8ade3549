import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Credentials from a service-account key: an RS256 JWT signed with OpenSSL, either exchanged for an access
/// token at the key's `token_uri` (the JWT-bearer grant) or sent itself as the bearer token (self-signed JWT)
/// (https://developers.google.com/identity/protocols/oauth2/service-account).
///
/// Tokens are cached and refreshed ``refreshMargin`` seconds before they expire, by a single request however
/// many tasks need a token at once; after a `401` the cached token is dropped and the next request gets a new
/// one. Neither the key nor any token appears in ``description``, reflection or errors.
public final class ServiceAccountCredentials: Credentials, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// How the signed JWT becomes a bearer token.
    public enum Mode: Sendable, Hashable {
        /// POST the JWT to `token_uri` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and use the
        /// returned access token. Claims: `iss` = `client_email`, `scope`, `aud` = `token_uri`, `iat`,
        /// `exp` = `iat` + 3600.
        case tokenExchange
        /// Send the JWT itself (no token request). Claims: `iss` = `sub` = `client_email`, `aud` (default
        /// `https://firestore.googleapis.com/`), `iat`, `exp` = `iat` + 3600.
        case selfSignedJWT(audience: String = "https://firestore.googleapis.com/")
    }

    /// The OAuth scope Firestore needs.
    public static let datastoreScope = "https://www.googleapis.com/auth/datastore"
    /// A JWT's lifetime, in seconds: the maximum Google accepts (one hour).
    package static let jwtLifetime: Int64 = 3600

    /// The key.
    public let key: ServiceAccountKey
    /// Token exchange or self-signed JWT.
    public let mode: Mode
    /// The OAuth scopes requested in ``Mode/tokenExchange`` mode.
    public let scopes: [String]
    /// Seconds before expiry at which a token is replaced.
    public let refreshMargin: Double
    private let cache: TokenCache

    /// - Parameters:
    ///   - key: the service-account key.
    ///   - mode: ``Mode/tokenExchange`` (default) or ``Mode/selfSignedJWT(audience:)``.
    ///   - scopes: the scopes for the token exchange; default `https://www.googleapis.com/auth/datastore`.
    ///   - transport: the transport for token requests; a ``CurlTransport`` by default.
    ///   - refreshMargin: seconds before expiry at which the token is refreshed (default 300).
    ///   - now: the wall clock (for tests).
    public init(
        key: ServiceAccountKey, mode: Mode = .tokenExchange,
        scopes: [String] = [ServiceAccountCredentials.datastoreScope],
        transport: (any HTTPTransport)? = nil, refreshMargin: Double = 300,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.key = key
        self.mode = mode
        self.scopes = scopes
        self.refreshMargin = refreshMargin
        let transport = transport ?? CurlTransport()
        cache = TokenCache(refreshMargin: refreshMargin, now: now) { [key, mode, scopes] in
            try await Self.fetchToken(key: key, mode: mode, scopes: scopes, transport: transport, now: now)
        }
    }

    /// Credentials from the service-account key file at `path`.
    /// - Throws: ``FirestoreError`` as ``ServiceAccountKey/init(contentsOfFile:)``.
    public convenience init(
        contentsOfFile path: String, mode: Mode = .tokenExchange, transport: (any HTTPTransport)? = nil
    ) throws(FirestoreError) {
        self.init(key: try ServiceAccountKey(contentsOfFile: path), mode: mode, transport: transport)
    }

    /// `Bearer <access token or JWT>`, from the cache or freshly obtained.
    /// - Throws: ``FirestoreError``: `.unauthenticated` when `token_uri` refused the grant (naming the OAuth
    ///   `error`), `.unavailable` or `.deadlineExceeded` when it could not be reached.
    public func authorizationHeader() async throws -> String? {
        try await accessToken().authorizationHeader
    }

    /// The current token (cached while more than ``refreshMargin`` seconds remain).
    /// - Throws: as ``authorizationHeader()``.
    public func accessToken() async throws -> AccessToken {
        try await cache.currentToken()
    }

    /// Drops the refused token; a new one will be fetched (or signed).
    /// - Returns: `true`.
    public func invalidate(refusedHeader: String) async -> Bool {
        await cache.invalidate(refusedHeader: refusedHeader)
        return true
    }

    /// How many tokens were requested or signed so far (for tests).
    var tokenRefreshCount: Int {
        get async { await cache.refreshCount }
    }

    /// The signed JWT for `issuedAt` in this credential's mode.
    /// - Throws: ``FirestoreError`` `.internal` when signing fails.
    func signedJWT(issuedAt: Date) throws(FirestoreError) -> String {
        try Self.signedJWT(key: key, mode: mode, scopes: scopes, issuedAt: issuedAt)
    }

    static func signedJWT(key: ServiceAccountKey, mode: Mode, scopes: [String], issuedAt: Date) throws(FirestoreError)
        -> String
    {
        var header: [String: JSONValue] = ["alg": "RS256", "typ": "JWT"]
        if let id = key.privateKeyID { header["kid"] = .string(id) }
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        var claims: [String: JSONValue] = [
            "iss": .string(key.clientEmail), "iat": .integer(iat), "exp": .integer(iat + jwtLifetime),
        ]
        switch mode {
        case .tokenExchange:
            claims["scope"] = .string(scopes.joined(separator: " "))
            claims["aud"] = .string(key.tokenURI)
        case .selfSignedJWT(let audience):
            claims["sub"] = .string(key.clientEmail)
            claims["aud"] = .string(audience)
        }
        return try JSONWebToken.signRS256(header: .object(header), claims: .object(claims), key: key.privateKey)
    }

    private static func fetchToken(
        key: ServiceAccountKey, mode: Mode, scopes: [String], transport: any HTTPTransport,
        now: @Sendable () -> Date
    ) async throws -> AccessToken {
        let issuedAt = now()
        let jwt = try signedJWT(key: key, mode: mode, scopes: scopes, issuedAt: issuedAt)
        switch mode {
        case .selfSignedJWT:
            let iat = issuedAt.timeIntervalSince1970.rounded(.down)
            return AccessToken(value: jwt, expiresAt: Date(timeIntervalSince1970: iat + Double(jwtLifetime)))
        case .tokenExchange:
            return try await OAuthTokenEndpoint.requestToken(
                url: key.tokenURI,
                form: [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", jwt)],
                transport: transport, now: now)
        }
    }

    /// `ServiceAccountCredentials(client_email: ..., mode: ..., private_key: <redacted>)`.
    public var description: String {
        "ServiceAccountCredentials(client_email: \(key.clientEmail), mode: \(mode), private_key: <redacted>)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Shows the key's public members only.
    public var customMirror: Mirror { Mirror(self, children: ["key": key, "mode": mode, "scopes": scopes]) }
}
