import Foundation

@testable import FirestoreREST
@testable import FirestoreTesting

/// The package's `Recordings/` folder, found from this source file's place (`Tests/FirestoreRESTTests/`).
enum RecordingsFolder {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Recordings")

    static func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    static func cassette(_ name: String) throws -> Cassette {
        try Cassette(contentsOfFile: path(name))
    }

    /// A client for `projectID` replaying `name` strictly (every request must match, none twice).
    static func replay(_ name: String, projectID: String, credentials: any Credentials = EmulatorOwnerCredentials())
        throws -> (Firestore, ReplayTransport)
    {
        let transport = ReplayTransport(cassette: try cassette(name), name: name)
        let db = Firestore(
            database: try DatabaseID(projectID: projectID), baseURL: "http://replay.invalid/v1/",
            credentials: credentials, transport: transport, isEmulator: true)
        return (db, transport)
    }
}
