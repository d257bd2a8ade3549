import FirestoreREST
import Synchronization

/// Where the running command's client talks to, kept once ``FirestoreConnection/makeClient()`` has made it, so
/// that the tool's messages can name the project and the server: a `not-found` or an empty result names the project
/// and database (a wrong project looks just like a missing document), and a refused connection to the emulator
/// says how to start one.
package enum ConnectionContext {
    /// The client's target, described.
    package struct Described: Sendable, Equatable {
        /// The project ID.
        package let project: String
        /// The database ID.
        package let database: String
        /// The emulator's `HOST:PORT`, `nil` for production or a replayed cassette.
        package let emulatorHost: String?
        /// `on the emulator at 127.0.0.1:8080`, `in production Firestore`, `in the cassette FILE`.
        package let place: String

        package init(project: String, database: String, emulatorHost: String?, place: String) {
            self.project = project
            self.database = database
            self.emulatorHost = emulatorHost
            self.place = place
        }

        /// `project "demo-x", database (default), on the emulator at 127.0.0.1:8080`.
        package var summary: String { "project \"\(project)\", database \(database), \(place)" }
    }

    private static let current = Mutex<Described?>(nil)

    /// The client the command made, described (`nil` before ``FirestoreConnection/makeClient()``).
    package static var described: Described? { current.withLock { $0 } }

    /// Keeps the description of `firestore`, whose requests go to `target`.
    static func record(_ firestore: Firestore, target: FirestoreConnection.Target) {
        let (host, place): (String?, String) =
            switch target {
            case .emulator(let host): (host, "on the emulator at \(host)")
            case .production: (nil, "in production Firestore")
            case .replay(let cassette): (nil, "in the cassette \(cassette)")
            }
        let described = Described(
            project: firestore.database.projectID, database: firestore.database.databaseID, emulatorHost: host,
            place: place)
        current.withLock { $0 = described }
    }

    /// What to add to the report of `error`, on lines of their own, or `nil`: for a refused connection to the
    /// emulator, how to start one; for the server's `not-found`, the project, database and server asked
    /// (`note: in project "demo-x", database (default), on the emulator at H`). None for an error of another service
    /// (a message starting `Pub/Sub`) or a refused connection to another host.
    package static func hint(for error: FirestoreError, in described: Described? = described) -> String? {
        // Another service's error (`publish`'s Pub/Sub) is not the Firestore connection's.
        guard let described, !error.message.hasPrefix("Pub/Sub") else { return nil }
        // A server's not-found only (an HTTP status, or a gRPC status from the server): a file the command could not
        // find is not the project's.
        if error.code == .notFound, error.httpStatus != nil || error.isServerStatus {
            return "note: in \(described.summary)"
        }
        if error.code == .unavailable, error.message.contains("could not connect"), let host = described.emulatorHost,
            error.message.contains(host)
        {
            return "hint: nothing listens at \(host): start the emulator there (gcloud emulators firestore start "
                + "--host-port=\(host); in a checkout of firestore-feed, Scripts/emulator start prints the address "
                + "it chose), or point --emulator or FIRESTORE_EMULATOR_HOST at the one running"
        }
        return nil
    }

    /// `note: no documents matched in project "demo-x", database (default), on the emulator at H`, for a query or
    /// count that found nothing: a mistyped project or collection finds nothing rather than failing.
    package static var emptyResultNote: String? {
        described.map { "note: no documents matched in \($0.summary)" }
    }
}
