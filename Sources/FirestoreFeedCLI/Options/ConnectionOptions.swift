import FirestoreREST
import Foundation

/// Where a command talks to, shared by every command that talks to Firestore: the emulator when `--emulator`
/// or `FIRESTORE_EMULATOR_HOST` names one (the owner token, no credentials), production Firestore otherwise
/// (Application Default Credentials or `--credentials FILE`; ``ProductionConnection``), and in both the project
/// and the database.
package struct ConnectionOptions {
    /// `--emulator` alone (`record` takes no project: each scenario names its own).
    package static let emulatorOption = OptionSpec.value(
        "--emulator", "HOST[:PORT]",
        help: """
            the Firestore emulator (default: $FIRESTORE_EMULATOR_HOST); HOST,
            HOST:PORT or http://HOST:PORT, port 8080 if none. Without one:
            production Firestore
            """)
    /// Every connection option.
    package static let options: [OptionSpec] = [
        emulatorOption,
        .value(
            "--project", "ID",
            help: """
                project ID (default: $GOOGLE_CLOUD_PROJECT, then $GCLOUD_PROJECT; in
                production then the key's or the metadata server's project, else an
                error; on the emulator then demo-project, with a note on stderr)
                """),
        .value("--database", "ID", help: "database ID (default: (default))"),
        .value(
            "--credentials", "FILE",
            help: """
                production: a service-account key or authorized_user JSON file
                (default: Application Default Credentials:
                $GOOGLE_APPLICATION_CREDENTIALS, gcloud's application-default
                file, the metadata server)
                """),
        .value(
            "--endpoint", "URL",
            help: """
                production: the API root, https://HOST[:PORT]
                (default https://firestore.googleapis.com)
                """),
        .value(
            "--ca-bundle", "FILE",
            help: """
                production: trust the CA certificates in FILE (PEM)
                instead of the system's
                """),
    ]

    /// The project the emulator gets when none is named.
    package static let emulatorDefaultProject = "demo-project"

    /// The emulator's `HOST:PORT`.
    package let host: String
    /// The named project (`--project`, `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`), else `demo-project`.
    package let projectID: String

    /// The emulator connection, for tools that only ever talk to an emulator (`record`).
    /// - Throws: ``CLIError/usage(_:help:)`` when no emulator is named or its address is malformed.
    package init(_ reader: ArgumentReader, help: String) throws(CLIError) {
        guard let host = try Self.emulatorHost(reader, help: help) else {
            throw .usage("no emulator: pass --emulator HOST:PORT or set FIRESTORE_EMULATOR_HOST", help: help)
        }
        self.host = host
        self.projectID = Self.namedProject(reader)?.id ?? Self.emulatorDefaultProject
    }

    /// The value of `option` when the command declares it.
    static func optional(_ reader: ArgumentReader, _ option: String) -> String? {
        reader.declares(option) ? reader.value(option) : nil
    }

    /// The emulator's `HOST:PORT` from `--emulator`, else a non-empty `FIRESTORE_EMULATOR_HOST`; `nil` for none.
    /// - Throws: ``CLIError/usage(_:help:)`` naming the option or the variable when the address is not one of
    ///   the forms ``EmulatorAddress`` takes.
    static func emulatorHost(_ reader: ArgumentReader, help: String) throws(CLIError) -> String? {
        if let text = optional(reader, "--emulator") {
            guard let host = EmulatorAddress.hostAndPort(text) else {
                throw .usage("--emulator \"\(text)\": \(EmulatorAddress.expected)", help: help)
            }
            return host
        }
        guard let text = ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"], !text.isEmpty else {
            return nil
        }
        guard let host = EmulatorAddress.hostAndPort(text) else {
            throw .usage("FIRESTORE_EMULATOR_HOST=\"\(text)\": \(EmulatorAddress.expected)", help: help)
        }
        return host
    }

    /// The project the command line or the environment names, and where it came from: `--project`, else
    /// `GOOGLE_CLOUD_PROJECT`, else `GCLOUD_PROJECT` (the order of the Google Cloud client libraries); empty
    /// values do not count.
    static func namedProject(_ reader: ArgumentReader) -> (id: String, source: String)? {
        if let project = optional(reader, "--project") { return (project, "--project") }
        let environment = ProcessInfo.processInfo.environment
        for variable in ["GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"] {
            if let project = environment[variable], !project.isEmpty { return (project, variable) }
        }
        return nil
    }

    /// The project for an emulator or an offline run: the named one, else `demo-project`, saying so on stderr
    /// (a project nobody named is never used silently).
    static func emulatorProject(_ reader: ArgumentReader, where place: String) -> String {
        if let named = namedProject(reader) { return named.id }
        Console.error(
            "note: using project \"\(emulatorDefaultProject)\" \(place) "
                + "(no --project, GOOGLE_CLOUD_PROJECT or GCLOUD_PROJECT given)")
        return emulatorDefaultProject
    }

    /// `--database`, else `(default)`.
    static func databaseID(_ reader: ArgumentReader) -> String {
        optional(reader, "--database") ?? "(default)"
    }

    /// The client: the emulator when one is named (then `--credentials`, `--endpoint` and `--ca-bundle` are
    /// refused), production Firestore otherwise (``ProductionConnection/firestore(_:help:transport:)``).
    /// - Parameter transport: wraps the curl transport the client gets (a recording transport, for `--cassette`).
    /// - Throws: ``CLIError/usage(_:help:)`` for a malformed address, project or database ID, production options
    ///   with an emulator, or no project in production; ``CLIError/runtime(_:)`` when the credentials cannot be
    ///   read or the metadata server cannot tell the project.
    package static func firestore(
        _ reader: ArgumentReader, help: String,
        transport: (CurlTransport) throws(CLIError) -> any HTTPTransport = { $0 }
    ) async throws(CLIError) -> Firestore {
        guard let host = try emulatorHost(reader, help: help) else {
            return try await ProductionConnection.firestore(reader, help: help, transport: transport)
        }
        for option in ["--credentials", "--endpoint", "--ca-bundle"] where optional(reader, option) != nil {
            throw .usage(
                "\(option) is for production Firestore, but the emulator at \(host) is named (by --emulator or "
                    + "FIRESTORE_EMULATOR_HOST): drop one of them", help: help)
        }
        let projectID = emulatorProject(reader, where: "on the emulator at \(host)")
        let wrapped = try transport(CurlTransport())
        do {
            return try Firestore.emulator(
                host: host, projectID: projectID, databaseID: databaseID(reader), transport: wrapped)
        } catch {
            throw .usage(error.message, help: help)
        }
    }
}
