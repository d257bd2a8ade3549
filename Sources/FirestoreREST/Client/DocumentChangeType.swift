import FirestoreWire

/// How a document changed between two snapshots of a query.
public enum DocumentChangeType: String, Sendable, Hashable {
    case added, modified, removed
}
