import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A reference to one document: read it, write it, delete it, or reach its subcollections.
///
/// A reference made from an invalid path does not trap; every operation on it throws the path's
/// ``FirestoreError`` (`.invalidArgument`) instead.
public struct DocumentReference: Sendable, Hashable, CustomStringConvertible {
    /// The client this reference belongs to.
    public let firestore: Firestore
    let pathResult: Result<ResourcePath, FirestoreError>
    /// The slash-separated path below the documents root, as given: `fruits/apple`.
    public let path: String

    init(firestore: Firestore, path: Result<ResourcePath, FirestoreError>, rawPath: String) {
        self.firestore = firestore
        self.pathResult = path
        self.path = rawPath
    }

    /// The validated path.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when the reference was made from an invalid path.
    public func resourcePath() throws(FirestoreError) -> ResourcePath { try pathResult.get() }

    /// The document ID, the last path segment.
    public var documentID: String {
        (try? pathResult.get().lastSegment) ?? path.lastUTF8Component("/")
    }

    /// The full resource name: `projects/p/databases/(default)/documents/fruits/apple`.
    public var resourceName: String { firestore.database.documentsRoot + "/" + path }

    /// The collection that holds this document.
    public var parent: CollectionReference {
        CollectionReference(
            firestore: firestore, path: pathResult.map(\.parent),
            rawPath: path.splitUTF8("/").dropLast().joined(separator: "/"))
    }

    /// The subcollection `collectionPath` below this document (`"reviews"`, or a longer relative path with an
    /// odd number of segments).
    public func collection(_ collectionPath: String) -> CollectionReference {
        CollectionReference(
            firestore: firestore,
            path: pathResult.flatMap { base in
                Result { () throws(FirestoreError) in
                    let full = try base.appending(path: collectionPath)
                    guard full.isCollection else {
                        throw .invalidArgument("\"\(full)\" is not a collection path")
                    }
                    return full
                }
            }, rawPath: path + "/" + collectionPath)
    }

    public var description: String { "DocumentReference(\(path))" }

    public static func == (lhs: DocumentReference, rhs: DocumentReference) -> Bool {
        lhs.firestore === rhs.firestore && lhs.path == rhs.path
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(firestore))
        hasher.combine(path)
    }

    // MARK: - Reads and writes

    /// Reads the document: GET `/v1/{name}`, or `GetDocument` over gRPC (``Firestore/wireProtocol``). A missing document is a snapshot with `exists == false`, as
    /// in the SDKs (a 404 `NOT_FOUND` is not thrown).
    /// - Throws: ``FirestoreError`` for an invalid path, a server error other than not-found, or a
    ///   transport failure.
    public func getDocument() async throws -> DocumentSnapshot {
        let resolved = try resourcePath()
        let firestore = firestore
        do {
            let document = try await firestore.routed {
                try await firestore.getDocumentRPC(resolved)
            } rest: { () async throws -> Document in
                let json = try await firestore.call("GET", firestore.encodedName(of: resolved))
                do {
                    return try Document(restJSON: json)
                } catch let error as FirestoreError {
                    throw FirestoreError(code: .internal, message: "GET \(path): malformed document: \(error.message)")
                }
            }
            return DocumentSnapshot(reference: self, document: document)
        } catch let error as FirestoreError where error.code == .notFound && error.isServerStatus {
            // Only the server's own NOT_FOUND status means "no such document"; a 404 page from a proxy or
            // another server stays an error.
            return DocumentSnapshot(reference: self, document: nil)
        }
    }

    /// Reads only the fields in `fieldMask`, or the document as it was at `readTime`: one batchGet (REST
    /// reference: `projects.databases.documents.batchGet`, body members `mask` and `readTime`), as the Node SDK
    /// reads a document (`DocumentReference.get`, `Firestore.getAll` with `fieldMask`). The emulator refuses
    /// `readTime` on a GET ("Only timestamps past epoch are supported."), so a GET is sent only when both are
    /// `nil` (then this is ``getDocument()``). A missing document (or one that did not exist at `readTime`) is a
    /// snapshot with `exists == false`.
    /// - Parameters:
    ///   - fieldMask: the fields to return (a field not in the document is left out); `nil` for all, `[]` for none.
    ///   - readTime: read as of this time (microsecond precision, within the last hour in production: the REST
    ///     reference's `readTime` rule), or now.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid path; `.failedPrecondition` from the server
    ///   for a `readTime` too old; otherwise the server's or the transport's error (`ReadOptionsLiveTests`).
    public func getDocument(fieldMask: [FieldPath]? = nil, readTime: Timestamp? = nil) async throws
        -> DocumentSnapshot
    {
        guard fieldMask != nil || readTime != nil else { return try await getDocument() }
        let snapshots = try await firestore.getAll([self], fieldMask: fieldMask, readTime: readTime)
        guard let snapshot = snapshots.first else {
            throw FirestoreError(code: .internal, message: "batchGet returned no result for \(path)")
        }
        return snapshot
    }

    /// Writes `data` to the document, creating it if needed: one commit (REST reference:
    /// `projects.databases.documents.commit`).
    ///
    /// Without `merge` the whole document is replaced (no update mask; `set-*` conformance). With `merge` only
    /// the fields in `data` change: the mask lists every leaf path of `data` (an empty map counts as a leaf)
    /// and every `FieldValue.delete()`, never a transform (`set-mergeall*`, `set-del-mergeall`). Sentinels
    /// become `updateTransforms`. Plain `[String: FirestoreValue]` data converts with
    /// `[String: FieldValue](fields)`.
    /// - Returns: the server's ``WriteResult``: the document's new `updateTime` and the results of the field
    ///   transforms, in order (`WriteResultLiveTests`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` before sending for an invalid path or data that breaks a
    ///   rule of ``FieldValue`` (e.g. `FieldValue.delete()` without `merge`, `set-del-wo-merge`); otherwise the
    ///   server's or the transport's error.
    @discardableResult
    public func setData(_ data: [String: FieldValue], merge: Bool = false) async throws -> WriteResult {
        try await commitOne(setWrite(data, merge: merge ? .mergeAll : .overwrite))
    }

    /// Writes only the fields named by dotted paths in `mergeFields` (`"stats.kcal"`), creating the document if
    /// needed; data outside them is ignored, sentinels outside them too (`set-merge*`, `set-st-nomerge`).
    /// - Returns: the server's ``WriteResult``: the document's new `updateTime` and the results of the field
    ///   transforms, in order (`WriteResultLiveTests`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` before sending when a merge field is not in `data`
    ///   (`set-merge-present`), one prefixes another (`set-merge-prefix`), a `FieldValue.delete()` is not
    ///   exactly at a merge field (`set-del-nomerge`, `set-del-nonleaf`), or a path is malformed; otherwise the
    ///   server's or the transport's error.
    @discardableResult
    public func setData(_ data: [String: FieldValue], mergeFields: [String]) async throws -> WriteResult {
        try await commitOne(setWrite(data, merge: .mergeFields(WriteEncoder.dottedPaths(mergeFields))))
    }

    /// Writes only the fields named by `mergeFields`; as the dotted `[String]` form.
    /// A ``FieldPath`` names a field whose name holds dots or other special characters (`set-merge-fp`).
    /// - Returns: the server's ``WriteResult``: the document's new `updateTime` and the results of the field
    ///   transforms, in order (`WriteResultLiveTests`).
    /// - Throws: as the dotted form.
    @discardableResult
    public func setData(_ data: [String: FieldValue], mergeFields: [FieldPath]) async throws -> WriteResult {
        try await commitOne(setWrite(data, merge: .mergeFields(mergeFields)))
    }

    /// Creates the document with `data`; fails if it exists (`create-*`: a set with
    /// `currentDocument.exists = false`).
    /// - Returns: the server's ``WriteResult``: the document's new `updateTime` and the results of the field
    ///   transforms, in order (`WriteResultLiveTests`).
    /// - Throws: ``FirestoreError`` `.alreadyExists` when the document exists; `.invalidArgument` before sending
    ///   for an invalid path or data (`FieldValue.delete()` is refused, `create-nodel`); otherwise the server's or
    ///   the transport's error.
    @discardableResult
    public func create(_ data: [String: FieldValue]) async throws -> WriteResult {
        try await commitOne(createWrite(data))
    }

    /// Updates the named fields of an existing document; other fields stay. Keys are dotted field paths split
    /// at the top level only (`"profile.age"` reaches into the map `profile`; keys inside values are literal:
    /// `update-split-top-level`); for a name that holds a dot use ``updateData(fields:precondition:)``.
    /// The mask is every key whose value is not itself a transform; `FieldValue.delete()` as a key's value
    /// deletes the field (`update-del*`).
    /// - Parameters:
    ///   - fields: dotted field paths and their new values or sentinels.
    ///   - precondition: `nil` means `exists: true`; `.updateTime(t)` replaces it (`update-uptime`);
    ///     `.exists(false)` is refused (`update-exists-false-precond`).
    /// - Returns: the server's ``WriteResult``: the document's new `updateTime` and the results of the field
    ///   transforms, in order (`WriteResultLiveTests`).
    /// - Throws: ``FirestoreError`` `.notFound` when the document does not exist, `.failedPrecondition` for an
    ///   `updateTime` mismatch; `.invalidArgument` before sending for no fields, a key that is empty, has an empty
    ///   segment or one of `~*/[]` (`update-badchar`), one key that is a prefix of another (`update-prefix-*`),
    ///   or a misplaced sentinel.
    @discardableResult
    public func updateData(_ fields: [String: FieldValue], precondition: Precondition? = nil) async throws
        -> WriteResult
    {
        try await commitOne(updateWrite(dottedFields: fields, precondition: precondition))
    }

    /// Updates fields named by ``FieldPath`` (segments are literal, never split: `update-paths-fp-nosplit`);
    /// see ``updateData(_:precondition:)``.
    /// - Returns: the server's ``WriteResult``: the document's new `updateTime` and the results of the field
    ///   transforms, in order (`WriteResultLiveTests`).
    /// - Throws: as ``updateData(_:precondition:)``.
    @discardableResult
    public func updateData(fields: [FieldPath: FieldValue], precondition: Precondition? = nil) async throws
        -> WriteResult
    {
        try await commitOne(updateWrite(Array(fields), precondition: precondition))
    }

    /// Updates fields given as ordered path–value pairs (the `update-paths-*` conformance form). Unlike a
    /// dictionary literal, which traps on a repeated key, a repeated path here is reported as an error
    /// (`update-paths-fp-dup`).
    /// - Returns: the server's ``WriteResult``: the document's new `updateTime` and the results of the field
    ///   transforms, in order (`WriteResultLiveTests`).
    /// - Throws: as ``updateData(_:precondition:)``.
    @discardableResult
    public func updateData(pathsAndValues: [(FieldPath, FieldValue)], precondition: Precondition? = nil)
        async throws -> WriteResult
    {
        try await commitOne(updateWrite(pathsAndValues, precondition: precondition))
    }

    /// Deletes the document. Deleting a missing document succeeds unless `precondition` says otherwise
    /// (`delete-*`).
    /// - Parameter precondition: `.exists(true)` to fail on a missing document, `.updateTime(t)` to fail when
    ///   the document changed since `t`.
    /// - Returns: the server's ``WriteResult``: no `updateTime` (the server sends none for a delete), the commit
    ///   time as its `writeTime`.
    /// - Throws: ``FirestoreError`` `.notFound` / `.failedPrecondition` when the precondition fails,
    ///   `.invalidArgument` for an invalid path, or a server or transport failure.
    @discardableResult
    public func delete(precondition: Precondition? = nil) async throws -> WriteResult {
        try await commitOne(deleteWrite(precondition: precondition))
    }

    /// The names of the subcollections of this document, sorted: POST `/v1/{name}:listCollectionIds`,
    /// following `nextPageToken` to the end (REST reference: `projects.databases.documents.listCollectionIds`;
    /// `ListCollectionIdsTests.followsPageTokensAtTheRootAndBelowADocument`). A document that does
    /// not exist can still have subcollections.
    /// - Parameter pageSize: IDs per request (1 ... 1000).
    /// - Throws: ``FirestoreError`` for an invalid path, a server or transport failure, or `.internal` when the
    ///   server repeats a page token.
    public func listCollectionIds(pageSize: Int = 300) async throws -> [String] {
        try await firestore.listCollectionIds(parent: resourcePath(), pageSize: pageSize, readTime: nil)
    }

    /// The subcollections of this document as they were at `readTime`, every page; see
    /// ``listCollectionIds(pageSize:)`` and ``Firestore/listCollectionIds(pageSize:readTime:)``.
    /// - Throws: as ``listCollectionIds(pageSize:)``; `.failedPrecondition` from the server for a `readTime` too
    ///   old.
    public func listCollectionIds(pageSize: Int = 300, readTime: Timestamp?) async throws -> [String] {
        try await firestore.listCollectionIds(parent: resourcePath(), pageSize: pageSize, readTime: readTime)
    }

    /// One page of this document's subcollection IDs; see
    /// ``Firestore/listCollectionIds(pageToken:pageSize:readTime:)``.
    /// - Throws: as ``listCollectionIds(pageSize:)``.
    public func listCollectionIds(pageToken: String?, pageSize: Int = 300, readTime: Timestamp? = nil)
        async throws -> ListCollectionIdsResponse
    {
        try await firestore.listCollectionIdsPage(
            parent: resourcePath(), pageToken: pageToken, pageSize: pageSize, readTime: readTime)
    }

    // MARK: - Write encoding shared with WriteBatch and Transaction

    /// Commits `write` alone and returns its result.
    private func commitOne(_ write: Write) async throws -> WriteResult {
        guard let result = try await firestore.commit([write]).writeResults.first else {
            throw FirestoreError(code: .internal, message: "commit of \(path) returned no write result")
        }
        return result
    }

    func setWrite(_ data: [String: FieldValue], merge: SetMergeOption) throws(FirestoreError) -> Write {
        try WriteEncoder.set(data, at: resourcePath(), merge: merge)
    }

    func createWrite(_ data: [String: FieldValue]) throws(FirestoreError) -> Write {
        try WriteEncoder.create(data, at: resourcePath())
    }

    func updateWrite(dottedFields fields: [String: FieldValue], precondition: Precondition?)
        throws(FirestoreError) -> Write
    {
        var pairs: [(FieldPath, FieldValue)] = []
        pairs.reserveCapacity(fields.count)
        for (key, value) in fields { pairs.append((try WriteEncoder.dottedPath(key), value)) }
        return try updateWrite(pairs, precondition: precondition)
    }

    func updateWrite(_ pairs: [(FieldPath, FieldValue)], precondition: Precondition?) throws(FirestoreError)
        -> Write
    {
        try WriteEncoder.update(pairs, at: resourcePath(), precondition: precondition)
    }

    func deleteWrite(precondition: Precondition?) throws(FirestoreError) -> Write {
        .delete(path: try resourcePath(), precondition: precondition)
    }
}
