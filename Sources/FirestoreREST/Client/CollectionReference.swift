import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A reference to a collection: add documents to it, list them, or query it (every ``Query`` builder method
/// is available on it through ``QueryRepresentable``).
///
/// A reference made from an invalid path does not trap; every operation on it throws the path's
/// ``FirestoreError`` (`.invalidArgument`) instead.
public struct CollectionReference: QueryRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The client this reference belongs to.
    public let firestore: Firestore
    let pathResult: Result<ResourcePath, FirestoreError>
    /// The slash-separated path below the documents root, as given: `fruits`.
    public let path: String

    init(firestore: Firestore, path: Result<ResourcePath, FirestoreError>, rawPath: String) {
        self.firestore = firestore
        self.pathResult = path
        self.path = rawPath
    }

    /// The collection ID, the last path segment.
    public var collectionID: String {
        (try? pathResult.get().lastSegment) ?? path.lastUTF8Component("/")
    }

    /// The query over every document of this collection.
    public var query: Query {
        Query(
            firestore: firestore, parent: pathResult.map(\.parent), collectionID: collectionID,
            allDescendants: false)
    }

    /// The document `documentID` in this collection.
    public func document(_ documentID: String) -> DocumentReference {
        DocumentReference(
            firestore: firestore,
            path: pathResult.flatMap { base in
                Result { () throws(FirestoreError) in try base.appending(documentID) }
            }, rawPath: path + "/" + documentID)
    }

    /// A document with a new random 20-character ID (`[A-Za-z0-9]`), as the SDKs make them.
    public func document() -> DocumentReference { document(Self.autoID()) }

    /// Creates a document with a random ID holding `data`: a commit with `currentDocument.exists = false`, as
    /// ``DocumentReference/create(_:)`` (`create-*` conformance). Sentinels are allowed as in `create`.
    /// - Returns: the new document's reference.
    /// - Throws: ``FirestoreError`` `.invalidArgument` before sending for an invalid path or data that breaks a
    ///   rule of ``FieldValue``; otherwise the server's or the transport's error.
    @discardableResult
    public func addDocument(data: [String: FieldValue]) async throws -> DocumentReference {
        let reference = document()
        _ = try await firestore.commit([try reference.createWrite(data)])
        return reference
    }

    /// Creates a document with a random ID holding `data`, as ``addDocument(data:)``, and returns the server's
    /// ``WriteResult`` with the reference, as the Python server SDK's `CollectionReference.add` returns its
    /// `(update_time, document_ref)` (https://cloud.google.com/python/docs/reference/firestore/latest/collection).
    /// - Returns: the new document's reference and the commit's result for it (its `updateTime`, the results of
    ///   its field transforms).
    /// - Throws: as ``addDocument(data:)``.
    @discardableResult
    public func add(_ data: [String: FieldValue])
        async throws -> (reference: DocumentReference, writeResult: WriteResult)
    {
        let reference = document()
        let response = try await firestore.commit([try reference.createWrite(data)])
        guard let result = response.writeResults.first else {
            throw FirestoreError(code: .internal, message: "commit of \(reference.path) returned no write result")
        }
        return (reference, result)
    }

    /// Every document of the collection in document-ID order: GET `/v1/{parent}/{collectionId}`, following
    /// `nextPageToken` until the server sends none (`ValueRoundTripLiveTests.listDocumentsFollowsPageTokens`).
    /// - Parameter pageSize: documents per request (1 ... 1000).
    /// - Throws: ``FirestoreError`` for an invalid path or a server or transport failure; `.internal` when a
    ///   page is malformed or the server repeats a page token.
    public func listDocuments(pageSize: Int = 300) async throws -> [DocumentSnapshot] {
        try await listDocuments(pageSize: pageSize, orderBy: [], fieldMask: nil, showMissing: false)
    }

    public var description: String { "CollectionReference(\(path))" }

    public static func == (lhs: CollectionReference, rhs: CollectionReference) -> Bool {
        lhs.firestore === rhs.firestore && lhs.path == rhs.path
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(firestore))
        hasher.combine(path)
    }

    static func autoID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}
