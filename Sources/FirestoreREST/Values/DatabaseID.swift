import FirestoreWire

/// A Firestore database: a project ID and a database ID (`(default)` unless a named database is used).
public struct DatabaseID: Sendable, Hashable, CustomStringConvertible {
    /// The Google Cloud project ID, e.g. `demo-fruits`.
    public let projectID: String
    /// The database ID, `(default)` for the default database.
    public let databaseID: String

    /// Creates a database ID. Both IDs go into every URL unencoded, so they are checked against what Google
    /// Cloud allows: a project ID of letters, digits, `-`, `_`, `.` and `:` (domain-scoped projects such as
    /// `example.com:app`), not starting with `.`; a database ID `(default)` or letters, digits, `-` and `_`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the ID and what is wrong with it.
    public init(projectID: String, databaseID: String = "(default)") throws(FirestoreError) {
        func only(_ text: String, _ extra: String) -> Bool {
            !text.isEmpty
                && text.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || extra.utf8.contains(byte)
                }
        }
        guard only(projectID, "-_.:"), !projectID.hasPrefix(".") else {
            throw .invalidArgument(
                "invalid project ID \"\(projectID)\": use letters, digits, '-', '_', '.' and ':' (not a leading '.')")
        }
        guard databaseID == "(default)" || only(databaseID, "-_") else {
            throw .invalidArgument(
                "invalid database ID \"\(databaseID)\": use (default) or letters, digits, '-' and '_'")
        }
        self.projectID = projectID
        self.databaseID = databaseID
    }

    /// `projects/{project}/databases/{database}`.
    public var name: String { "projects/\(projectID)/databases/\(databaseID)" }

    /// `projects/{project}/databases/{database}/documents`, the parent of every top-level collection.
    public var documentsRoot: String { name + "/documents" }

    /// The full resource name of `path`: `projects/p/databases/(default)/documents/fruits/apple`.
    public func resourceName(of path: ResourcePath) -> String {
        path.segments.isEmpty ? documentsRoot : documentsRoot + "/" + path.description
    }

    /// The path below the documents root of a full resource name of this database. An ID holding NUL is kept:
    /// the name is the server's, and a document another client named so must still be read and deleted.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when `name` belongs to another database or is malformed.
    public func path(ofResourceName name: String) throws(FirestoreError) -> ResourcePath {
        if let path = name.utf8.withContiguousStorageIfAvailable({ bytes in pathBytes(ofResourceName: bytes) }),
            let path
        {
            return try ResourcePath(serverPath: path)
        }
        let prefix = documentsRoot + "/"
        guard name.hasPrefix(prefix) else {
            if name == documentsRoot { return .root }
            throw .invalidArgument("resource name \"\(name)\" is not below \(documentsRoot)")
        }
        return try ResourcePath(serverPath: String(name.dropFirst(prefix.count)))
    }

    /// The part of `name` after `projects/{project}/databases/{database}/documents/`, found by comparing bytes (no
    /// string is built for the prefix), or `nil` when the bytes differ or the byte after the prefix is not ASCII:
    /// then ``path(ofResourceName:)`` compares `Character`s as before. An ASCII prefix followed by an ASCII byte is
    /// the same prefix whether bytes or `Character`s are compared (the IDs of a `DatabaseID` are ASCII).
    private func pathBytes(ofResourceName name: UnsafeBufferPointer<UInt8>) -> String? {
        var offset = 0
        func take(_ part: String) -> Bool {
            for byte in part.utf8 {
                guard offset < name.count, name[offset] == byte else { return false }
                offset += 1
            }
            return true
        }
        guard take("projects/"), take(projectID), take("/databases/"), take(databaseID), take("/documents/"),
            offset < name.count, name[offset] < 0x80
        else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: name[offset...]), as: UTF8.self)
    }

    /// `projects/{project}/databases/{database}`.
    public var description: String { name }
}
