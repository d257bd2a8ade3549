import FirestoreWire

/// Which servers a ``Credentials`` provider's header may be sent to (the emulator's owner token only to an
/// emulator, real credentials never to one: `AuthorizationPathTests`).
public enum CredentialsAudience: Sendable, Hashable, CustomStringConvertible {
    /// Only to a Firestore emulator (`Bearer owner`, fake ID tokens for rules tests).
    case emulator
    /// Only to production Firestore (real OAuth 2 access tokens and signed JWTs).
    case production
    /// Anywhere (no credentials at all).
    case any

    /// `emulator`, `production` or `any`.
    public var description: String {
        switch self {
        case .emulator: return "emulator"
        case .production: return "production"
        case .any: return "any"
        }
    }

    /// Whether credentials of this audience may be sent to an emulator (`toEmulator`) or to production.
    public func allows(emulator toEmulator: Bool) -> Bool {
        switch self {
        case .any: return true
        case .emulator: return toEmulator
        case .production: return !toEmulator
        }
    }
}
