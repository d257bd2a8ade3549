/// A Firestore database: a project ID and a database ID (`(default)` unless a named database is used).
public struct DatabaseID: Sendable, Hashable, CustomStringConvertible {
    /// The Google Cloud project ID, e.g. `demo-fruits`.
    public let projectID: String
    /// The database ID, `(default)` for the default database.
    public let databaseID: String

    /// Creates a database ID.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when either ID is empty or holds `/`.
    public init(projectID: String, databaseID: String = "(default)") throws(FirestoreError) {
        guard !projectID.isEmpty, !projectID.contains("/") else {
            throw .invalidArgument("invalid project ID \"\(projectID)\"")
        }
        guard !databaseID.isEmpty, !databaseID.contains("/") else {
            throw .invalidArgument("invalid database ID \"\(databaseID)\"")
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

    /// The path below the documents root of a full resource name of this database.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when `name` belongs to another database or is malformed.
    public func path(ofResourceName name: String) throws(FirestoreError) -> ResourcePath {
        let prefix = documentsRoot + "/"
        guard name.hasPrefix(prefix) else {
            if name == documentsRoot { return .root }
            throw .invalidArgument("resource name \"\(name)\" is not below \(documentsRoot)")
        }
        return try ResourcePath(String(name.dropFirst(prefix.count)))
    }

    /// `projects/{project}/databases/{database}`.
    public var description: String { name }
}
