import FirestoreWire

/// A type a ``DocumentID`` can hold: `String` (the document ID) or ``DocumentReference`` (the reference).
public protocol DocumentIDWrappable {
    /// The value for the document at `reference`.
    /// - Throws: an error when the reference cannot be represented.
    static func wrap(_ reference: DocumentReference) throws -> Self
}
