import FirestoreREST
import Foundation

extension Cassette {
    /// The database the cassette's requests went to: read from the first request whose path starts with
    /// `/v1/projects/{project}/databases/{database}` (the REST reference's resource names, as in
    /// `projects.databases.documents.runQuery`'s `parent`); failing that, from the `database` of the first
    /// Listen request (``listenSessions``); `nil` when none names a valid one. A replay must use the same
    /// project and database, because both are part of every recorded path and Listen request.
    /// - Complexity: O(n) in the number of interactions.
    public var database: DatabaseID? {
        for interaction in interactions {
            let segments = interaction.request.pathWithoutQuery.split(separator: "/", omittingEmptySubsequences: false)
            guard segments.count >= 6, segments[0].isEmpty, segments[1] == "v1", segments[2] == "projects",
                segments[4] == "databases"
            else { continue }
            let project = String(segments[3])
            var database = String(segments[5])
            if let colon = database.firstIndex(of: ":") { database = String(database[..<colon]) }
            database = database.removingPercentEncoding ?? database
            if let id = try? DatabaseID(projectID: project.removingPercentEncoding ?? project, databaseID: database) {
                return id
            }
        }
        return listenDatabase
    }

    /// The database named by the first Listen request's `database` (`projects/{project}/databases/{database}`).
    private var listenDatabase: DatabaseID? {
        for session in listenSessions {
            for request in session.requests {
                guard let name = request["database"]?.stringValue else { continue }
                let segments = name.split(separator: "/", omittingEmptySubsequences: false)
                guard segments.count == 4, segments[0] == "projects", segments[2] == "databases" else { continue }
                if let id = try? DatabaseID(projectID: String(segments[1]), databaseID: String(segments[3])) {
                    return id
                }
            }
        }
        return nil
    }
}
