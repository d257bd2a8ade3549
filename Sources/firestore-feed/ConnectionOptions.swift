import FirestoreREST
import Foundation

/// `--emulator HOST:PORT` and `--project ID`, shared by every command that talks to Firestore.
struct ConnectionOptions {
    static let valueFlags: Set<String> = ["--emulator", "--project"]
    static let help = """
          --emulator HOST:PORT       Firestore emulator to use (default: $FIRESTORE_EMULATOR_HOST)
          --project ID               project ID (default: $GCLOUD_PROJECT, else demo-project)
        """

    let host: String
    let projectID: String

    /// - Throws: ``CLIError/usage(_:help:)`` when no emulator is named.
    init(_ reader: ArgumentReader, help: String) throws(CLIError) {
        let environment = ProcessInfo.processInfo.environment
        guard let host = reader.value("--emulator") ?? environment["FIRESTORE_EMULATOR_HOST"], !host.isEmpty else {
            throw .usage("no emulator: pass --emulator HOST:PORT or set FIRESTORE_EMULATOR_HOST", help: help)
        }
        self.host = host
        self.projectID = reader.value("--project") ?? environment["GCLOUD_PROJECT"] ?? "demo-project"
    }

    /// The client.
    /// - Throws: ``CLIError/usage(_:help:)`` for a malformed host or project.
    func firestore(help: String) throws(CLIError) -> Firestore {
        do {
            return try Firestore.emulator(host: host, projectID: projectID)
        } catch {
            throw .usage(error.message, help: help)
        }
    }
}
