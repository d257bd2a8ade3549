import FirestoreWire

/// The Firestore emulator's admin token: `Authorization: Bearer owner` bypasses security rules
/// (Firebase Local Emulator Suite docs: the emulator treats `Bearer owner` as an admin;
/// `AuthorizationPathTests.theOwnerTokenIsNeverSentToProduction`). It is sent only to an emulator: a client for
/// production refuses it (``CredentialsAudience/emulator``), and real credentials are never sent to an emulator.
public struct EmulatorOwnerCredentials: Credentials {
    public init() {}
    /// Always `Bearer owner`.
    public func authorizationHeader() async throws -> String? { "Bearer owner" }
    /// ``CredentialsAudience/emulator``.
    public var audience: CredentialsAudience { .emulator }
}
