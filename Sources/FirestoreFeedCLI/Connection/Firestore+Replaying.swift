import FirestoreREST
import FirestoreTesting

extension Firestore {
    /// A client whose every request `transport` answers from its cassette: no request leaves the process
    /// (`--cassette` replayed, `demo --replay`).
    static func replaying(_ transport: ReplayTransport, database: DatabaseID) -> Firestore {
        Firestore(
            database: database, baseURL: "http://replay.invalid/v1/", credentials: EmulatorOwnerCredentials(),
            transport: transport, isEmulator: true)
    }
}
