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

    /// The wire protocols every live test of reads and writes runs under: REST and gRPC (issue 29: "every live
    /// test of reads and writes runs under both protocols").
    package static let protocols: [FirestoreProtocol] = [.rest, .grpc]

    /// A client as ``make(_:)`` that speaks `wire` only (``Firestore/using(protocol:)``).
    package static func make(_ label: String, _ wire: FirestoreProtocol) throws -> Firestore {
        try make(label).using(protocol: wire)
    }
}
