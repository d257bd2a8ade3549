import FirestoreWire

/// One `orderBy` entry.
public struct QueryOrder: Sendable, Hashable {
    /// The field ordered by.
    public let field: FieldPath
    /// Descending when `true`, ascending otherwise.
    public let descending: Bool

    public init(field: FieldPath, descending: Bool) {
        self.field = field
        self.descending = descending
    }
}
