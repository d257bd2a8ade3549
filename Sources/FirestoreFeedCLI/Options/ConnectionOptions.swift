import FirestoreREST
import Foundation

/// `--emulator HOST:PORT` and `--project ID`, shared by every command that talks to Firestore.
package struct ConnectionOptions {
    /// `--emulator` alone (`record` takes no project: each scenario names its own).
    package static let emulatorOption = OptionSpec.value(
        "--emulator", "HOST:PORT", help: "Firestore emulator to use (default: $FIRESTORE_EMULATOR_HOST)")
    /// `--emulator` and `--project`.
    package static let options: [OptionSpec] = [
        emulatorOption,
        .value("--project", "ID", help: "project ID (default: $GCLOUD_PROJECT, else demo-project)"),
    ]

    /// The emulator's `HOST:PORT`.
    package let host: String
    /// The project ID.
    package let projectID: String

    /// - Throws: ``CLIError/usage(_:help:)`` when no emulator is named.
    package init(_ reader: ArgumentReader, help: String) throws(CLIError) {
        let environment = ProcessInfo.processInfo.environment
        guard let host = reader.value("--emulator") ?? environment["FIRESTORE_EMULATOR_HOST"], !host.isEmpty else {
            throw .usage("no emulator: pass --emulator HOST:PORT or set FIRESTORE_EMULATOR_HOST", help: help)
        }
        self.host = host
        self.projectID = Self.projectID(reader)
    }

    /// `--project` (when the command has it), else `$GCLOUD_PROJECT`, else `demo-project`.
    static func projectID(_ reader: ArgumentReader) -> String {
        let project = reader.declares("--project") ? reader.value("--project") : nil
        return project ?? ProcessInfo.processInfo.environment["GCLOUD_PROJECT"] ?? "demo-project"
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
