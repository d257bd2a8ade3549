import FirestoreREST
import Foundation

/// `--emulator`, `--project`, `--database`, `--credentials`, `--endpoint`, `--ca-bundle` and `--protocol`: where a command
/// talks to, shared by every command that talks to Firestore (``FirestoreConnection`` makes the client). The
/// emulator when `--emulator` or `FIRESTORE_EMULATOR_HOST` names one (the owner token, no credentials),
/// production Firestore otherwise (Application Default Credentials or `--credentials FILE`), and in both the
/// project and the database.
package struct ConnectionOptions: Sendable {
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
        .value(
            "--protocol", "rest|grpc|automatic",
            help: """
                the wire protocol of reads and writes (default: automatic):
                REST's JSON, gRPC's protobuf over HTTP/2, or automatic: gRPC
                where HTTP/2 gets through, REST otherwise (watch's Listen
                stream is gRPC either way)
                """),
    ]

    /// The project the emulator gets when none is named.
    package static let emulatorDefaultProject = "demo-project"

    /// `--emulator` as given.
    package let emulator: String?
    /// `--project`.
    package let project: String?
    /// `--database`.
    package let database: String?
    /// `--credentials FILE`.
    package let credentials: String?
    /// `--endpoint URL` as given (``ProductionConnection/endpoint(_:)`` reads it).
    package let endpoint: String?
    /// `--ca-bundle FILE`.
    package let caBundle: String?
    /// `--protocol` as given.
    package let wireProtocolName: String?

    /// The options the command declares (`record` declares `--emulator` only); the others are `nil`.
    package init(parsing reader: ArgumentReader) {
        emulator = reader.valueIfDeclared("--emulator")
        project = reader.valueIfDeclared("--project")
        database = reader.valueIfDeclared("--database")
        credentials = reader.valueIfDeclared("--credentials")
        endpoint = reader.valueIfDeclared("--endpoint")
        caBundle = reader.valueIfDeclared("--ca-bundle")
        wireProtocolName = reader.valueIfDeclared("--protocol")
    }

    /// `--protocol`, else ``FirestoreProtocol/automatic`` (the library's default).
    /// - Throws: ``ValidationError`` for a value other than `rest`, `grpc` and `automatic`.
    package func wireProtocol() throws(ValidationError) -> FirestoreProtocol {
        guard let wireProtocolName else { return .automatic }
        guard let chosen = FirestoreProtocol(rawValue: wireProtocolName) else {
            throw ValidationError("--protocol \"\(wireProtocolName)\": expected rest, grpc or automatic")
        }
        return chosen
    }

    /// The emulator's `HOST:PORT` from `--emulator`, else a non-empty `FIRESTORE_EMULATOR_HOST`; `nil` for none.
    /// - Throws: ``ValidationError`` naming the option or the variable when the address is not one of the forms
    ///   ``EmulatorAddress`` takes.
    package func emulatorHost() throws(ValidationError) -> String? {
        if let emulator {
            guard let host = EmulatorAddress.hostAndPort(emulator) else {
                throw ValidationError("--emulator \"\(emulator)\": \(EmulatorAddress.expected)")
            }
            return host
        }
        guard let text = ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"], !text.isEmpty else {
            return nil
        }
        guard let host = EmulatorAddress.hostAndPort(text) else {
            throw ValidationError("FIRESTORE_EMULATOR_HOST=\"\(text)\": \(EmulatorAddress.expected)")
        }
        return host
    }

    /// The emulator's `HOST:PORT`, for tools that only ever talk to an emulator (`record`).
    /// - Throws: ``ValidationError`` when no emulator is named or its address is malformed.
    package func requiredEmulatorHost() throws(ValidationError) -> String {
        guard let host = try emulatorHost() else {
            throw ValidationError("no emulator: pass --emulator HOST:PORT or set FIRESTORE_EMULATOR_HOST")
        }
        return host
    }

    /// The project the command line or the environment names, and where it came from: `--project`, else
    /// `GOOGLE_CLOUD_PROJECT`, else `GCLOUD_PROJECT` (the order of the Google Cloud client libraries); empty
    /// values do not count.
    package var namedProject: (id: String, source: String)? {
        if let project { return (project, "--project") }
        let environment = ProcessInfo.processInfo.environment
        for variable in ["GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"] {
            if let project = environment[variable], !project.isEmpty { return (project, variable) }
        }
        return nil
    }

    /// The project for an emulator or an offline run: the named one, else `demo-project`, saying so on stderr
    /// (a project nobody named is never used silently).
    package func emulatorProject(where place: String) -> String {
        if let named = namedProject { return named.id }
        Console.error(
            "note: using project \"\(Self.emulatorDefaultProject)\" \(place) "
                + "(no --project, GOOGLE_CLOUD_PROJECT or GCLOUD_PROJECT given)")
        return Self.emulatorDefaultProject
    }

    /// `--database`, else `(default)`.
    package var databaseID: String { database ?? "(default)" }
}
