import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A type a ``ServerTimestamp`` can hold: ``Timestamp`` and `Date` are built in; add others (an ISO 8601
/// `String`, say) by converting to and from ``Timestamp``.
public protocol ServerTimestampWrappable {
    /// The value for a timestamp read from Firestore.
    /// - Throws: an error when `timestamp` cannot be represented.
    static func wrap(_ timestamp: Timestamp) throws -> Self
    /// The timestamp to write for `value`.
    /// - Throws: an error when `value` names no instant (it fails the encoding, naming the field).
    static func unwrap(_ value: Self) throws -> Timestamp
}
