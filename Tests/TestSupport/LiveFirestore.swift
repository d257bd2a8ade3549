import FirestoreREST
import Foundation

/// A client on the emulator of `FIRESTORE_EMULATOR_HOST`, in a project of its own (projects are isolated,
/// so tests never see each other's documents).
package enum LiveFirestore {
    package static func make(_ label: String) throws -> Firestore {
        try Firestore.emulator(
            host: EmulatorEnvironment.requireHost(),
            projectID: EmulatorEnvironment.uniqueProjectID(label))
    }
}
