import FirestoreREST

/// One computed change between two query results, on plain `Document` values.
package struct ComputedChange: Sendable, Hashable {
    /// What happened.
    package let type: DocumentChangeType
    /// The new version (for `.removed`, the last known version).
    package let document: Document
    /// Position in the working list before the change, `nil` for `.added`.
    package let oldIndex: Int?
    /// Position in the working list after the change, `nil` for `.removed`.
    package let newIndex: Int?

    package init(type: DocumentChangeType, document: Document, oldIndex: Int?, newIndex: Int?) {
        self.type = type
        self.document = document
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }
}
