import FirestoreWire

/// A document as read at one moment: its reference, and its data when it exists.
///
/// Two snapshots are equal when their references and documents (fields, create and update times) are equal;
/// ``readTime`` is not compared, as the Node SDK's `DocumentSnapshot.isEqual`.
public struct DocumentSnapshot: Sendable, Hashable {
    /// Where the document lives.
    public let reference: DocumentReference
    /// The REST document, or `nil` when the document does not exist.
    public let document: Document?
    /// The time the server read the document at (Node `DocumentSnapshot.readTime`): the `readTime` of the
    /// batchGet or runQuery response that carried it (REST `BatchGetDocumentsResponse.read_time`,
    /// `RunQueryResponse.read_time`), for a missing document too. `nil` where the server gives none: a plain
    /// ``DocumentReference/getDocument()`` is a GET, whose response is the bare document, and a change feed's
    /// snapshots carry the time on their ``QuerySnapshot/readTime``.
    public let readTime: Timestamp?

    /// A snapshot of `document` (or of a missing document when `nil`), read at `readTime` when known.
    public init(reference: DocumentReference, document: Document?, readTime: Timestamp? = nil) {
        self.reference = reference
        self.document = document
        self.readTime = readTime
    }

    /// A snapshot of a document read from `firestore` at `readTime` when known, its reference derived from the
    /// resource name.
    public init(firestore: Firestore, document: Document, readTime: Timestamp? = nil) {
        let path = Result { () throws(FirestoreError) in try firestore.database.path(ofResourceName: document.name) }
        let raw = (try? path.get().description) ?? document.name
        self.init(
            reference: DocumentReference(firestore: firestore, path: path, rawPath: raw), document: document,
            readTime: readTime)
    }

    /// Whether both snapshots have the same reference and document; the read times are not compared.
    public static func == (lhs: DocumentSnapshot, rhs: DocumentSnapshot) -> Bool {
        lhs.reference == rhs.reference && lhs.document == rhs.document
    }

    /// Hashes the reference and the document (not the read time), as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(reference)
        hasher.combine(document)
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
