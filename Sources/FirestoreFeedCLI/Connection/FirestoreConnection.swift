import FirestoreREST
import FirestoreTesting

/// The client a command talks through, and the one place that chooses where its requests go, from the
/// connection and cassette options and the environment (``target()``):
///
/// | given | target | recorded |
/// |---|---|---|
/// | `--cassette FILE` with `--record-mode none`, or `once` (the default) and FILE exists | the cassette, no server | |
/// | `--emulator HOST[:PORT]` or `FIRESTORE_EMULATOR_HOST` | the emulator, owner token | to FILE with `--cassette` |
/// | neither | production Firestore, Application Default Credentials or `--credentials` | to FILE with `--cassette` |
package struct FirestoreConnection: Sendable {
    /// Where the requests go.
    package enum Target: Equatable, Sendable {
        /// A cassette replayed: no request leaves the process.
        case replay(cassette: String)
        /// The emulator at `HOST:PORT`.
        case emulator(host: String)
        /// Production Firestore (``ProductionConnection``).
        case production
    }

    /// Where and as whom.
    package let options: ConnectionOptions
    /// The cassette to record or replay (``CassetteOptions/none`` for a command without `--cassette`).
    package let cassette: CassetteOptions

    /// The connection options, and the cassette options when the command declares them.
    /// - Throws: ``ValidationError`` for a cassette option that cannot be read.
    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        options = ConnectionOptions(parsing: reader)
        cassette = reader.declares("--cassette") ? try CassetteOptions(parsing: reader) : .none
    }

    /// - Throws: ``ValidationError`` for cassette options without `--cassette`, or a project ID named by
    ///   `--project` or the environment that the target cannot take (``ProjectIDSyntax``: production's rule for
    ///   production, the emulator's otherwise).
    package func validate() throws(ValidationError) {
        try cassette.validate()
        _ = try options.wireProtocol()
        guard let named = options.namedProject else { return }
        // A malformed emulator address is makeClient's to report; until then the emulator's rule applies.
        let production = (try? target()) == .production
        if let problem = ProjectIDSyntax.problem(named.id, source: named.source, production: production) {
            throw ValidationError(problem)
        }
    }

    /// Where the requests go: a replayed cassette, else the emulator named, else production.
    /// - Throws: ``ValidationError`` for a malformed emulator address.
    package func target() throws(ValidationError) -> Target {
        if let path = cassette.replayedPath { return .replay(cassette: path) }
        if let host = try options.emulatorHost() { return .emulator(host: host) }
        return .production
    }

    /// The client for ``target()``, recording to the cassette when one is given and not replayed (each exchange
    /// is added to the file as it completes, so Ctrl-C or a kill keeps what was recorded).
    /// - Throws: ``CLIError/usage(_:)`` for a malformed address, project or database ID, production options
    ///   with an emulator, or no project in production; ``CLIError/runtime(_:)`` for a cassette that is missing
    ///   (mode none) or malformed, credentials that cannot be read, or a metadata server that cannot tell the
    ///   project.
    package func makeClient() async throws(CLIError) -> Firestore {
        let target: Target
        let wireProtocol: FirestoreProtocol
        do {
            target = try self.target()
            wireProtocol = try options.wireProtocol()
        } catch {
            throw .usage(error.message)
        }
        let client: Firestore
        switch target {
        case .replay(let path): client = try replayClient(path)
        case .emulator(let host): client = try emulatorClient(host)
        case .production:
            client = try await ProductionConnection(options).client(transport: recordingTransport(over:))
        }
        let chosen = client.using(protocol: wireProtocol)
        ConnectionContext.record(chosen, target: target)
        return chosen
    }

    /// A client for a request that is only printed (`query --dry-run`): no server and no credentials; the
    /// emulator named, else `127.0.0.1:8080`, for the request's path; speaking `--protocol`'s protocol, which
    /// chooses the form printed.
    /// - Throws: ``CLIError/usage(_:)`` for a malformed address, project or database ID.
    package func dryRunClient() throws(CLIError) -> Firestore {
        let host: String
        let wireProtocol: FirestoreProtocol
        do {
            host = try options.emulatorHost() ?? "127.0.0.1:8080"
            wireProtocol = try options.wireProtocol()
        } catch {
            throw .usage(error.message)
        }
        let project = options.emulatorProject(where: "in the dry run")
        do {
            return try Firestore.emulator(host: host, projectID: project, databaseID: options.databaseID)
                .using(protocol: wireProtocol)
        } catch {
            throw .usage(error.message)
        }
    }

    /// The emulator's client (`--credentials`, `--endpoint` and `--ca-bundle` are refused with it).
    private func emulatorClient(_ host: String) throws(CLIError) -> Firestore {
        for (option, value) in [
            ("--credentials", options.credentials), ("--endpoint", options.endpoint),
            ("--ca-bundle", options.caBundle),
        ] where value != nil {
            throw .usage(
                "\(option) is for production Firestore, but the emulator at \(host) is named (by --emulator or "
                    + "FIRESTORE_EMULATOR_HOST): drop one of them")
        }
        let projectID = options.emulatorProject(where: "on the emulator at \(host)")
        let transport = try recordingTransport(over: CurlTransport())
        do {
            return try Firestore.emulator(
                host: host, projectID: projectID, databaseID: options.databaseID, transport: transport)
        } catch {
            throw .usage(error.message)
        }
    }

    /// A client that only replays `path`, for the project and database named, else the recorded ones.
    private func replayClient(_ path: String) throws(CLIError) -> Firestore {
        let transport: ReplayTransport
        do {
            transport = try ReplayTransport(file: path, mode: .none, live: nil, options: cassette.replayOptions)
        } catch {
            throw .runtime(error)
        }
        let recorded = transport.cassette.database
        let projectID =
            options.project ?? recorded?.projectID
            ?? options.emulatorProject(where: "to replay \(path) (it names none)")
        let databaseID = options.database ?? recorded?.databaseID ?? "(default)"
        do {
            return Firestore.replaying(
                transport, database: try DatabaseID(projectID: projectID, databaseID: databaseID))
        } catch {
            throw .usage(error.message)
        }
    }

    /// `live`, or with `--cassette` a ``ReplayTransport`` recording through it to the cassette in its mode.
    private func recordingTransport(over live: CurlTransport) throws(CLIError) -> any HTTPTransport {
        guard let path = cassette.path else { return live }
        do {
            let transport = try ReplayTransport(
                file: path, mode: cassette.mode, live: live, options: cassette.replayOptions)
            CassetteRecordings.add(transport)
            return transport
        } catch {
            throw .runtime(error)
        }
    }
}
