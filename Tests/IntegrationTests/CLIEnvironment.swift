import FirestoreTestSupport
import Foundation

/// Environments for running the CLI without an emulator, so that nothing of the machine's own configuration
/// (a gcloud login, `GOOGLE_*` variables, a real metadata server) takes part.
enum CLIEnvironment {
    /// The variables that choose a connection, a project or credentials.
    static let connectionVariables = [
        "FIRESTORE_EMULATOR_HOST", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT",
        "CLOUDSDK_CONFIG", "GCE_METADATA_HOST",
    ]

    /// This process's environment without the connection variables, `HOME` set to `home` (a folder with no
    /// gcloud file unless a test puts one there), and `extra` added.
    static func production(home: String, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for variable in connectionVariables { environment[variable] = nil }
        environment["HOME"] = home
        return environment.merging(extra) { _, new in new }
    }

    /// A metadata server address where nothing listens: refused at once.
    static let deadMetadataHost = "127.0.0.1:1"

    /// A fresh empty folder for `HOME`.
    static func emptyHome(_ label: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cli-home-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
