import FirestoreWire

/// A start or end position of a query: explicit values for the order fields, or a document snapshot whose
/// values (and reference, for `__name__`) are taken (REST reference: `StructuredQuery.start_at`, `Cursor`).
public struct QueryCursor: Sendable, Hashable {
    enum Position: Sendable, Hashable {
        case values([FirestoreValue])
        case document(DocumentSnapshot)
    }

    let position: Position
    /// REST `before`: true for `start(at:)` and `end(before:)`, false for `start(after:)` and `end(at:)`.
    let before: Bool
}
