import FirestoreREST

/// The client a command that writes fields (`set`, `update`, `create`, `add`, `import`) writes through: the
/// connection (``FirestoreConnection``) and `--server-timestamp FIELD`, which makes every write also set FIELD
/// to the server's time of the write, as the library's `settingServerTimestamp(on:)`.
struct WriteConnection: Sendable {
    /// The connection options and `--server-timestamp`.
    static let options = ConnectionOptions.options + [serverTimestampOption]

    static let serverTimestampOption = OptionSpec.value(
        "--server-timestamp", "FIELD",
        help: """
            also set FIELD to the server's time of the write (the library's
            settingServerTimestamp(on:); what watch --mode delta tracks)
            """)

    let connection: FirestoreConnection
    /// `--server-timestamp FIELD` as given.
    let serverTimestamp: String?

    init(parsing reader: ArgumentReader) throws(ValidationError) {
        connection = try FirestoreConnection(parsing: reader)
        serverTimestamp = reader.value("--server-timestamp")
    }

    /// - Throws: ``ValidationError`` for an empty `--server-timestamp`.
    func validate() throws(ValidationError) {
        if serverTimestamp == "" { throw ValidationError("--server-timestamp needs a field path") }
        try connection.validate()
    }

    /// The connection's client, stamping every write when `--server-timestamp` is given.
    /// - Throws: ``CLIError/usage(_:)`` for a field that is not a field path, and the errors of
    ///   ``FirestoreConnection/makeClient()``.
    func makeClient() async throws(CLIError) -> Firestore {
        let db = try await connection.makeClient()
        guard let field = serverTimestamp else { return db }
        do {
            return try db.settingServerTimestamp(on: field)
        } catch {
            throw .usage("--server-timestamp \"\(field)\": \(error.message)")
        }
    }
}
