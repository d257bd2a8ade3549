import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a test suite needs from the Firestore emulator, after `@firebase/rules-unit-testing`
/// (https://firebase.google.com/docs/rules/unit-tests): clear a project's documents, load its security rules, and
/// clients that act as an authenticated end user, as nobody, or as the owner who bypasses the rules.
///
/// ```swift
/// let admin = try FirestoreEmulatorAdmin(host: "127.0.0.1:8080", projectID: "demo-rules")
/// try await admin.loadFirestoreRules(rulesSource)
/// let alice = try admin.authenticatedContext(uid: "alice")             // request.auth.uid == "alice"
/// let root = try admin.authenticatedContext(uid: "root", claims: ["admin": true])   // request.auth.token.admin
/// let nobody = admin.unauthenticatedContext()                          // request.auth == null
/// try await admin.withSecurityRulesDisabled { db in try await db.document("users/bob").setData(["n": 1]) }
/// try await admin.clearFirestore()
/// ```
///
/// Observed on the emulator (`EmulatorAdminLiveTests`): rules belong to one project, so parallel suites on one
/// emulator with a project each never see each other's rules or documents; a project whose rules were never loaded
/// (and an emulator started without `--rules`) allows every read and write; clearing documents keeps the rules; a
/// denial is `permission-denied` (HTTP 403) with the emulator's reasons in the message, which starts with a line
/// break.
///
/// The endpoints are the emulator's own, not part of the Firestore API: `DELETE
/// /emulator/v1/projects/{project}/databases/{database}/documents` and `PUT|GET
/// /emulator/v1/projects/{project}:securityRules` with `{"rules": {"files": [{"name", "content"}]}}`.
public struct FirestoreEmulatorAdmin: Sendable {
    /// One file of a security rules source.
    public struct RulesFile: Sendable, Hashable {
        /// The file's name, shown in the emulator's compile errors (`nil`: none).
        public var name: String?
        /// The rules text (`rules_version = '2'; service cloud.firestore { ... }`).
        public var content: String

        /// A rules file.
        public init(name: String? = "firestore.rules", content: String) {
            self.name = name
            self.content = content
        }
    }

    /// The owner client (`Bearer owner`, rules bypassed) the admin requests go through.
    public let owner: Firestore

    /// The project and database administered.
    public var database: DatabaseID { owner.database }

    /// An admin for `projectID` (and `databaseID`) on the emulator at `host`.
    /// - Parameters:
    ///   - host: `HOST:PORT` (a scheme is accepted and dropped), as ``Firestore/emulator(host:projectID:databaseID:transport:)``.
    ///   - projectID: the project; give each test suite its own.
    ///   - databaseID: the database whose documents ``clearFirestore()`` deletes; `(default)` unless given.
    ///   - transport: the HTTP transport of every client made here; a ``CurlTransport`` by default.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a malformed host or ID.
    public init(
        host: String, projectID: String, databaseID: String = "(default)", transport: (any HTTPTransport)? = nil
    ) throws(FirestoreError) {
        owner = try Firestore.emulator(
            host: host, projectID: projectID, databaseID: databaseID, transport: transport ?? CurlTransport())
    }

    /// An admin for the emulator named by `FIRESTORE_EMULATOR_HOST`.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the variable is not set; `.invalidArgument` as
    ///   ``init(host:projectID:databaseID:transport:)``.
    public static func fromEnvironment(
        projectID: String, databaseID: String = "(default)", transport: (any HTTPTransport)? = nil
    ) throws(FirestoreError) -> FirestoreEmulatorAdmin {
        let owner = try Firestore.fromEnvironment(
            projectID: projectID, databaseID: databaseID, transport: transport ?? CurlTransport())
        return FirestoreEmulatorAdmin(owner: owner)
    }

    private init(owner: Firestore) { self.owner = owner }

    // MARK: - Clients

    /// A client acting as the Firebase Auth user `uid` with `claims` (``EmulatorMockUserCredentials``): rules see
    /// `request.auth.uid == uid` and `request.auth.token.<claim>`. Same transport, no retries.
    /// - Throws: ``FirestoreError`` `.invalidArgument` as ``EmulatorMockUserCredentials/init(uid:projectID:claims:)``.
    public func authenticatedContext(uid: String, claims: [String: JSONValue] = [:]) throws(FirestoreError)
        -> Firestore
    {
        client(try EmulatorMockUserCredentials(uid: uid, projectID: database.projectID, claims: claims))
    }

    /// A client with no `Authorization` header: rules see `request.auth == null`.
    public func unauthenticatedContext() -> Firestore {
        client(NoCredentials())
    }

    /// Runs `body` with the owner client, for which the emulator skips security rules (seeding data, checking what
    /// a denied write left). The same client as ``owner``.
    /// - Throws: what `body` throws.
    @discardableResult
    public func withSecurityRulesDisabled<Result>(_ body: (Firestore) async throws -> Result) async rethrows
        -> Result
    {
        try await body(owner)
    }

    private func client(_ credentials: any Credentials) -> Firestore {
        Firestore(
            database: owner.database, baseURL: owner.baseURL, credentials: credentials, transport: owner.transport,
            isEmulator: true, retryPolicy: .none)
    }

    // MARK: - Admin calls

    /// Deletes every document of this admin's project and database, and nothing else: other projects, other
    /// databases and the loaded rules stay. `DELETE /emulator/v1/projects/{project}/databases/{database}/documents`.
    /// - Throws: ``FirestoreError``: the emulator's error, or the transport's (`.unavailable` when no emulator
    ///   answers), the message naming the database.
    public func clearFirestore() async throws {
        try await send("DELETE", "projects/\(database.projectID)/databases/\(database.databaseID)/documents", body: nil)
    }

    /// Replaces this project's security rules with `source` (one file named `firestore.rules`).
    /// - Throws: as ``loadFirestoreRules(files:)``.
    public func loadFirestoreRules(_ source: String) async throws {
        try await loadFirestoreRules(files: [RulesFile(content: source)])
    }

    /// Replaces this project's security rules (every database of the project) with `files`; other projects keep
    /// theirs. `PUT /emulator/v1/projects/{project}:securityRules`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for no file, or when the emulator cannot compile them (its
    ///   message names the line and column, `Error compiling rules: L1:53 Missing conditional expression after
    ///   'if'.`); the transport's error; each message starts with the project.
    public func loadFirestoreRules(files: [RulesFile]) async throws {
        guard !files.isEmpty else {
            throw FirestoreError.invalidArgument("security rules for \(database.projectID): no rules file")
        }
        let list = files.map { file -> JSONValue in
            var members: [String: JSONValue] = ["content": .string(file.content)]
            if let name = file.name { members["name"] = .string(name) }
            return .object(members)
        }
        try await send(
            "PUT", "projects/\(database.projectID):securityRules",
            body: .object(["rules": .object(["files": .array(list)])]))
    }

    /// The security rules the emulator applies to this project: the files last loaded, or the emulator's default
    /// (one file named `OPEN_RULES` allowing every read and write when it was started without `--rules`).
    /// `GET /emulator/v1/projects/{project}:securityRules`.
    /// - Throws: ``FirestoreError``: the emulator's or the transport's error; `.internal` for an answer without
    ///   `rules.files`.
    public func firestoreRules() async throws -> [RulesFile] {
        let json = try await send("GET", "projects/\(database.projectID):securityRules", body: nil)
        guard case .array(let files)? = json["rules"]?["files"] else {
            throw FirestoreError(
                code: .internal,
                message: "security rules for \(database.projectID): the emulator's answer has no rules.files")
        }
        var result: [RulesFile] = []
        for (index, file) in files.enumerated() {
            guard let content = file["content"]?.stringValue else {
                throw FirestoreError(
                    code: .internal,
                    message: "security rules for \(database.projectID): rules.files[\(index)] has no content")
            }
            result.append(RulesFile(name: file["name"]?.stringValue, content: content))
        }
        return result
    }

    /// Sends an admin request below `/emulator/v1/` with the owner token.
    @discardableResult
    private func send(_ method: String, _ resource: String, body: JSONValue?) async throws -> JSONValue {
        let root = owner.baseURL.hasSuffix("v1/") ? String(owner.baseURL.dropLast(3)) : owner.baseURL
        var headers = [HTTPHeader("Accept", "application/json")]
        if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        let request = HTTPRequest(
            method: method, url: root + "emulator/v1/" + resource, headers: headers, body: body?.serialized(),
            isIdempotent: true)
        let what = "\(method) emulator/v1/\(resource)"
        do {
            return try await owner.perform(request, what: what, idempotent: true).json
        } catch var error as FirestoreError {
            error.message = "\(what): " + error.message
            throw error
        }
    }
}
