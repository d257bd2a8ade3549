/// Supplies the `Authorization` header value for each request.
///
/// Implementations cache tokens; ``authorizationHeader()`` is called once per request and must be cheap when a
/// token is cached. Production providers (service account, ADC, metadata server) arrive with the production
/// issue; this file holds the two every setup needs.
public protocol Credentials: Sendable {
    /// The full header value (`Bearer ya29...`), or `nil` to send no `Authorization` header.
    /// - Throws: ``FirestoreError`` `.unauthenticated` when no token can be had.
    func authorizationHeader() async throws -> String?
}

/// The Firestore emulator's admin token: `Authorization: Bearer owner` bypasses security rules
/// (`firestore-rest.md` §2.2, field case E-29). Real credentials are never sent to an emulator.
public struct EmulatorOwnerCredentials: Credentials {
    public init() {}
    /// Always `Bearer owner`.
    public func authorizationHeader() async throws -> String? { "Bearer owner" }
}

/// A fixed bearer token, e.g. one printed by `gcloud auth print-access-token`. It is never refreshed.
public struct StaticTokenCredentials: Credentials, CustomStringConvertible {
    private let token: String

    /// - Parameter token: the access token without the `Bearer ` prefix.
    public init(token: String) { self.token = token }

    /// `Bearer <token>`.
    public func authorizationHeader() async throws -> String? { "Bearer " + token }

    /// Never shows the token.
    public var description: String { "StaticTokenCredentials(token: <redacted>)" }
}

/// Sends no `Authorization` header (an emulator judged by its security rules as an anonymous client).
public struct NoCredentials: Credentials {
    public init() {}
    /// Always `nil`.
    public func authorizationHeader() async throws -> String? { nil }
}
