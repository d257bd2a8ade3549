import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An OAuth 2 access token (or a self-signed JWT used as one) and when it expires.
///
/// The token text is never shown: ``description``, `debugDescription` and reflection (`dump`) print
/// `<redacted>`.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The token, sent as `Authorization: Bearer <value>`.
    public let value: String
    /// When the token stops being accepted, or `nil` when unknown (then it is replaced only after a `401`).
    public let expiresAt: Date?

    /// - Parameters:
    ///   - value: the token text.
    ///   - expiresAt: its expiry time, or `nil` when unknown.
    public init(value: String, expiresAt: Date?) {
        self.value = value
        self.expiresAt = expiresAt
    }

    /// `Bearer <value>`.
    public var authorizationHeader: String { "Bearer " + value }

    /// Seconds from `now` until expiry (negative once expired); `.infinity` when the expiry is unknown.
    package func secondsRemaining(at now: Date) -> Double {
        guard let expiresAt else { return .infinity }
        return expiresAt.timeIntervalSince(now)
    }

    /// `AccessToken(<redacted>, expires at 2026-01-01T10:00:00Z)`.
    public var description: String {
        "AccessToken(<redacted>, expires at \(expiresAt.map { Timestamp(date: $0).rfc3339 } ?? "unknown"))"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Shows the expiry only.
    public var customMirror: Mirror { Mirror(self, children: ["value": "<redacted>", "expiresAt": expiresAt as Any]) }
}
