/// A document as read at one moment: its reference, and its data when it exists.
public struct DocumentSnapshot: Sendable, Hashable {
    /// Where the document lives.
    public let reference: DocumentReference
    /// The REST document, or `nil` when the document does not exist.
    public let document: Document?

    /// A snapshot of `document` (or of a missing document when `nil`).
    public init(reference: DocumentReference, document: Document?) {
        self.reference = reference
        self.document = document
    }

    /// A snapshot of a document read from `firestore`, its reference derived from the resource name.
    public init(firestore: Firestore, document: Document) {
        let path = Result { () throws(FirestoreError) in try firestore.database.path(ofResourceName: document.name) }
        let raw = (try? path.get().description) ?? document.name
        self.init(reference: DocumentReference(firestore: firestore, path: path, rawPath: raw), document: document)
    }

    /// The document ID.
    public var documentID: String { reference.documentID }
    /// Whether the document exists.
    public var exists: Bool { document != nil }
    /// The fields, or `nil` when the document does not exist.
    public func data() -> [String: FirestoreValue]? { document?.fields }
    /// When the document was created, or `nil` when it does not exist.
    public var createTime: Timestamp? { document?.createTime }
    /// When the document last changed, or `nil` when it does not exist.
    public var updateTime: Timestamp? { document?.updateTime }

    /// The value at a dotted field path (`"profile.age"`), or `nil` when absent.
    public func get(_ field: String) -> FirestoreValue? {
        guard let path = try? FieldPath(dotted: field) else { return nil }
        return get(path)
    }

    /// The value at `path`, or `nil` when absent (or when the document does not exist).
    public func get(_ path: FieldPath) -> FirestoreValue? {
        document?.value(at: path)
    }
}
