import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A Firestore REST v1 client for one database: the entry point to collections, documents, queries and
/// writes. Cheap to share: it is `Sendable`, and every reference and query made from it holds it.
///
/// ```swift
/// let db = try Firestore.emulator(host: "127.0.0.1:8080", projectID: "demo-fruits")
/// let apple = try await db.document("fruits/apple").getDocument()
/// ```
public final class Firestore: Sendable {
    /// The database this client talks to.
    public let database: DatabaseID
    /// The API root every request URL starts with, ending in `/v1/`:
    /// `https://firestore.googleapis.com/v1/` or `http://127.0.0.1:8080/v1/`.
    public let baseURL: String
    /// The transport requests go through. A ``CurlTransport`` carries REST, gRPC and the Listen stream; any
    /// other ``HTTPTransport`` (one of your own) carries REST only: calls go over REST and change feeds poll
    /// (``HTTPTransport``).
    public let transport: any HTTPTransport
    /// Where the `Authorization` header comes from.
    public let credentials: any Credentials
    /// Whether this client talks to an emulator (plain HTTP, owner token).
    public let isEmulator: Bool
    /// When failed idempotent calls are sent again (``RetryPolicy``); ``RetryPolicy/none`` for an emulator.
    public let retryPolicy: RetryPolicy
    /// The field every write of this client sets to the server time, or `nil`; see
    /// ``settingServerTimestamp(on:)``.
    public let serverTimestampField: FieldPath?
    /// The wire protocol of this client's calls (``FirestoreProtocol``); the Listen stream is gRPC whatever it
    /// says. ``FirestoreProtocol/automatic`` for a new client (gRPC where HTTP/2 gets through: a 10,000-document
    /// query reads about 3 times faster than over REST on the emulator, <doc:WireProtocol>);
    /// ``using(protocol:)`` returns a client with another.
    public let wireProtocol: FirestoreProtocol
    /// The gRPC channel this client's calls share and what ``FirestoreProtocol/automatic`` learnt.
    package let rpcState: RPCClientState
    /// The documents this client's open transactions hold, so that they take turns.
    package let transactionLocks = TransactionLocks()
    /// The log handler and metrics factory (``logHandler``, ``metricsFactory``).
    package let observability: Observability
    /// Whether the client is open, and what ``shutdown()`` ends; shared by the client's copies.
    package let lifecycle: ClientLifecycle

    /// A client for production Firestore (`https://firestore.googleapis.com/v1/`).
    /// - Parameters:
    ///   - projectID: the Google Cloud project.
    ///   - databaseID: the database, `(default)` unless a named database is used.
    ///   - credentials: where tokens come from.
    ///   - transport: the HTTP transport; a ``CurlTransport`` by default. A transport of your own means REST
    ///     and polling: no gRPC, no Listen stream (``HTTPTransport``).
    ///   - retryPolicy: when failed idempotent calls are retried; ``RetryPolicy/default`` by default.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an empty or malformed ID.
    public convenience init(
        projectID: String, databaseID: String = "(default)", credentials: any Credentials,
        transport: (any HTTPTransport)? = nil, retryPolicy: RetryPolicy = .default
    ) throws(FirestoreError) {
        try self.init(
            database: DatabaseID(projectID: projectID, databaseID: databaseID),
            baseURL: "https://firestore.googleapis.com/v1/", credentials: credentials,
            transport: transport ?? CurlTransport(), isEmulator: false, retryPolicy: retryPolicy)
    }

    /// A client with every part given, for tests and custom endpoints.
    /// - Parameters:
    ///   - database: the project and database.
    ///   - baseURL: the API root; a trailing `/v1/` is added when missing.
    ///   - credentials: where the `Authorization` header comes from.
    ///   - transport: the HTTP transport. Only a ``CurlTransport`` carries gRPC and the Listen stream; a
    ///     transport of your own means REST and polling (``HTTPTransport``).
    ///   - isEmulator: whether the server is an emulator: ``CredentialsAudience/production`` credentials are
    ///     never sent to it, and ``CredentialsAudience/emulator`` credentials are sent to nothing else.
    ///   - retryPolicy: when failed idempotent calls are retried; ``RetryPolicy/default`` by default.
    public init(
        database: DatabaseID, baseURL: String, credentials: any Credentials, transport: any HTTPTransport,
        isEmulator: Bool, retryPolicy: RetryPolicy = .default
    ) {
        var root = baseURL
        if !root.hasSuffix("/") { root += "/" }
        if !root.hasSuffix("/v1/") { root += "v1/" }
        self.database = database
        self.baseURL = root
        self.credentials = credentials
        self.transport = transport
        self.isEmulator = isEmulator
        self.retryPolicy = retryPolicy
        self.serverTimestampField = nil
        self.observability = Observability()
        self.wireProtocol = .automatic
        self.rpcState = RPCClientState()
        self.lifecycle = ClientLifecycle(database: database)
    }

    /// A client like `other` (same database, URL, credentials, transport, retries and gRPC channel) whose writes
    /// set `serverTimestampField` and whose calls use `wireProtocol`.
    init(_ other: Firestore, serverTimestampField: FieldPath?, wireProtocol: FirestoreProtocol? = nil) {
        self.database = other.database
        self.baseURL = other.baseURL
        self.credentials = other.credentials
        self.transport = other.transport
        self.isEmulator = other.isEmulator
        self.retryPolicy = other.retryPolicy
        self.serverTimestampField = serverTimestampField
        self.observability = other.observability
        self.wireProtocol = wireProtocol ?? other.wireProtocol
        self.rpcState = other.rpcState
        self.lifecycle = other.lifecycle
    }

    /// A client for the Firestore emulator at `host` (`"127.0.0.1:8080"`, no scheme): plain HTTP and the
    /// `Bearer owner` admin token (`AuthorizationPathTests`).
    ///
    /// `transport` is a ``CurlTransport`` when `nil`; a transport of your own means REST and polling: no gRPC, no
    /// Listen stream (``HTTPTransport``).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an empty host or a malformed ID.
    public static func emulator(
        host: String, projectID: String, databaseID: String = "(default)", transport: (any HTTPTransport)? = nil
    ) throws(FirestoreError) -> Firestore {
        var address = host
        for scheme in ["http://", "https://"] where address.hasPrefix(scheme) {
            address.removeFirst(scheme.count)
        }
        while address.hasSuffix("/") { address.removeLast() }
        guard Self.isHostAndPort(address) else {
            throw .invalidArgument(
                "invalid emulator host \"\(host)\": expected HOST:PORT (a name, IPv4 or [IPv6] address, port 1-65535)")
        }
        return Firestore(
            database: try DatabaseID(projectID: projectID, databaseID: databaseID),
            baseURL: "http://\(address)/v1/", credentials: EmulatorOwnerCredentials(),
            transport: transport ?? CurlTransport(), isEmulator: true, retryPolicy: .none)
    }

    /// A client for the emulator named by `FIRESTORE_EMULATOR_HOST` when it is set, as every Firebase server
    /// SDK does.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the variable is not set; `.invalidArgument` as
    ///   ``emulator(host:projectID:databaseID:transport:)``.
    public static func fromEnvironment(
        projectID: String, databaseID: String = "(default)", transport: (any HTTPTransport)? = nil
    ) throws(FirestoreError) -> Firestore {
        guard let host = ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"], !host.isEmpty else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "FIRESTORE_EMULATOR_HOST is not set; production credentials are not configured")
        }
        return try emulator(host: host, projectID: projectID, databaseID: databaseID, transport: transport)
    }

    /// Whether `text` is `HOST:PORT`: a host name or IPv4 address of letters, digits, `.` and `-`, or an IPv6
    /// address in brackets, then a port from 1 to 65535.
    package static func isHostAndPort(_ text: String) -> Bool {
        guard let colon = text.utf8.lastIndex(of: UInt8(ascii: ":")) else { return false }
        let host = String(decoding: text.utf8[..<colon], as: UTF8.self)
        let port = String(decoding: text.utf8[text.utf8.index(after: colon)...], as: UTF8.self)
        guard let number = Int(port), (1...65_535).contains(number), port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return false }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            return host.count > 2
                && host.dropFirst().dropLast().utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
                        || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
                }
        }
        return !host.isEmpty
            && host.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            }
    }

    /// A reference to the collection at `path` (`"fruits"`, `"fruits/apple/reviews"`). An invalid path
    /// (even number of segments, empty segment) is reported by the first operation on the reference.
    public func collection(_ path: String) -> CollectionReference {
        CollectionReference(
            firestore: self,
            path: Result { () throws(FirestoreError) in
                let parsed = try ResourcePath(path)
                guard parsed.isCollection else {
                    throw .invalidArgument("\"\(path)\" is not a collection path (it needs an odd number of segments)")
                }
                return parsed
            }, rawPath: path)
    }

    /// A reference to the document at `path` (`"fruits/apple"`). An invalid path (odd number of segments,
    /// empty segment) is reported by the first operation on the reference.
    public func document(_ path: String) -> DocumentReference {
        DocumentReference(
            firestore: self,
            path: Result { () throws(FirestoreError) in
                let parsed = try ResourcePath(path)
                guard parsed.isDocument else {
                    throw .invalidArgument("\"\(path)\" is not a document path (it needs an even number of segments)")
                }
                return parsed
            }, rawPath: path)
    }

    /// A query over every collection named `collectionID` anywhere in the database (`allDescendants`).
    public func collectionGroup(_ collectionID: String) -> Query {
        Query(firestore: self, parent: .success(.root), collectionID: collectionID, allDescendants: true)
    }
}
