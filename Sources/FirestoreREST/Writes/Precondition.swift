import FirestoreWire

/// A condition the server checks before applying a write (REST reference: `Precondition`).
///
/// A failed condition fails the whole commit: `exists(false)` on an existing document with `.alreadyExists`,
/// `exists(true)` on a missing one with `.notFound`, an `updateTime` mismatch with `.failedPrecondition`.
public enum Precondition: Sendable, Hashable {
    /// The document must exist (`true`) or must not (`false`).
    case exists(Bool)
    /// The document's `updateTime` must equal this (the document must exist).
    case updateTime(Timestamp)

    /// The REST `Precondition` object: `{"exists": true}` or `{"updateTime": "..."}`.
    package var restJSON: JSONValue {
        switch self {
        case .exists(let flag): return ["exists": .bool(flag)]
        case .updateTime(let time): return ["updateTime": .string(time.rfc3339)]
        }
    }
}
