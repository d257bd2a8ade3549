import FirestoreWire

/// One change between two snapshots of a query, with the SDKs' index semantics (conformance `listen-*.json` in
/// `Tests/ConformanceTests/Resources/conformance`, run by `ListenConformanceTests`): removals first, then additions,
/// then modifications, each in query order; the indexes refer to the working list as the changes are applied one by
/// one.
public struct DocumentChange: Sendable, Hashable {
    /// What happened.
    public let type: DocumentChangeType
    /// The document after the change; for `.removed`, its last known state.
    public let document: DocumentSnapshot
    /// Position before the change, `nil` for `.added`.
    public let oldIndex: Int?
    /// Position after the change, `nil` for `.removed`.
    public let newIndex: Int?

    public init(type: DocumentChangeType, document: DocumentSnapshot, oldIndex: Int?, newIndex: Int?) {
        self.type = type
        self.document = document
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }
}
