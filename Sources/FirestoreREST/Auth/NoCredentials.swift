import FirestoreWire

/// Sends no `Authorization` header (an emulator judged by its security rules as an anonymous client, or a
/// test double). Allowed towards any server.
public struct NoCredentials: Credentials {
    public init() {}
    /// Always `nil`.
    public func authorizationHeader() async throws -> String? { nil }
    /// ``CredentialsAudience/any``.
    public var audience: CredentialsAudience { .any }
}
