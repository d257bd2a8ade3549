import FirestoreWire

/// A fixed bearer token, e.g. one printed by `gcloud auth print-access-token`. It is never refreshed, so a
/// `401` is returned to the caller as `.unauthenticated`.
public struct StaticTokenCredentials: Credentials, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let token: String
    /// Where the token may be sent: ``CredentialsAudience/production`` for a real access token (default), or
    /// ``CredentialsAudience/emulator`` for a fake, unsigned ID token that an emulator judges by its security
    /// rules (`AuthorizationPathTests.aFakeIDTokenForRulesTestsMayGoToAnEmulator`).
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
