import Foundation

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
        (try? pathResult.get().lastSegment) ?? String(path.split(separator: "/").last ?? "")
    }

    /// The full resource name: `projects/p/databases/(default)/documents/fruits/apple`.
    public var resourceName: String { firestore.database.documentsRoot + "/" + path }

    /// The collection that holds this document.
    public var parent: CollectionReference {
        CollectionReference(
            firestore: firestore, path: pathResult.map(\.parent),
            rawPath: path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
    }

    /// The subcollection `collectionPath` below this document (`"reviews"`, or a longer relative path with an
    /// odd number of segments).
    public func collection(_ collectionPath: String) -> CollectionReference {
        CollectionReference(firestore: firestore, path: pathResult.flatMap { base in
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

    /// Reads the document: GET `/v1/{name}`. A missing document is a snapshot with `exists == false`, as
    /// in the SDKs (a 404 `NOT_FOUND` is not thrown).
    /// - Throws: ``FirestoreError`` for an invalid path, a server error other than not-found, or a
    ///   transport failure.
    public func getDocument() async throws -> DocumentSnapshot {
        let resolved = try resourcePath()
        do {
            let json = try await firestore.call("GET", firestore.encodedName(of: resolved))
            return DocumentSnapshot(reference: self, document: try Document(restJSON: json))
        } catch let error as FirestoreError where error.code == .notFound && error.httpStatus == 404 {
            return DocumentSnapshot(reference: self, document: nil)
        }
    }

    /// Writes `data` to the document, creating it if needed. Without `merge` the whole document is
    /// replaced; with `merge` only the leaf fields in `data` change (the update mask lists every leaf path;
    /// an empty map value counts as a leaf), as the conformance `set-merge*.json` tests pin.
    /// - Throws: ``FirestoreError`` for an invalid path or a server or transport failure.
    public func setData(_ data: [String: FirestoreValue], merge: Bool = false) async throws {
        let resolved = try resourcePath()
        let mask = merge ? FieldMask.leafPaths(of: data) : nil
        _ = try await firestore.commit([.update(path: resolved, fields: data, mask: mask, precondition: nil)])
    }

    /// Updates the named fields of an existing document; other fields stay. Keys are dotted field paths
    /// (`"profile.age"` reaches into the map `profile`); for a field name that holds a dot use
    /// ``updateData(fields:)`` with a ``FieldPath``. The mask is exactly the given paths.
    /// - Throws: ``FirestoreError`` `.notFound` when the document does not exist, `.invalidArgument` for an
    ///   empty update, an invalid path, or one path that is a prefix of another (`a` and `a.b`).
    public func updateData(_ fields: [String: FirestoreValue]) async throws {
        var byPath: [FieldPath: FirestoreValue] = [:]
        for (key, value) in fields { byPath[try FieldPath(dotted: key)] = value }
        try await updateData(fields: byPath)
    }

    /// Updates fields named by ``FieldPath``; see ``updateData(_:)``.
    /// - Throws: as ``updateData(_:)``.
    public func updateData(fields: [FieldPath: FirestoreValue]) async throws {
        let resolved = try resourcePath()
        let (nested, mask) = try FieldMask.nest(fields)
        _ = try await firestore.commit([.update(path: resolved, fields: nested, mask: mask,
                                                precondition: .exists(true))])
    }

    /// Deletes the document. Deleting a missing document succeeds.
    /// - Throws: ``FirestoreError`` for an invalid path or a server or transport failure.
    public func delete() async throws {
        _ = try await firestore.commit([.delete(path: try resourcePath(), precondition: nil)])
    }
}
