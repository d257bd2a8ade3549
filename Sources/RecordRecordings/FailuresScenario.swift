import FirestoreREST
import FirestoreTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `failures` scenario: requests that get no response, recorded as such (`Cassette.Failure`), through
/// `Scripts/fault-proxy` in front of the emulator (`--sequence reset,timeout --only /documents/failures/`) and a port
/// that refuses connections. A developer tool of this repository; see `Recordings/README.md`.
///
/// 1. `failures/apple` is seeded straight on the emulator (a commit).
/// 2. A client with retries (3 attempts) reads it through the proxy: the first attempt is reset, the second times out
///    (requests to the proxy time out after 2 s, the proxy holds the request 6 s), the third is answered. This is the
///    retry path `RecordedFailuresReplayTests` replays offline.
/// 3. A client of a port where nothing listens reads the document (refused, no retry) and writes it with 2 attempts
///    (refused twice: nothing was sent, so even a commit is sent again).
enum FailuresScenario {
    static let projectID = "demo-failures"

    /// The transport settings of requests through the proxy: a 2 s request timeout, shorter than the proxy's 6 s
    /// hold (`--stall 6`).
    static let configuration = CurlTransport.Configuration(connectTimeout: 5, requestTimeout: 2)

    /// The live transport to record through: requests to `proxy` time out after 2 s (``configuration``), every other
    /// request has the default timeouts (a fresh emulator's first answer can take seconds).
    static func liveTransport(proxy: String?) -> any HTTPTransport {
        ProxyTimeoutTransport(proxy: proxy, short: CurlTransport(configuration: configuration), other: CurlTransport())
    }

    static func run(host: String, proxy: String, transport: any HTTPTransport) async throws {
        let owner = try Firestore.emulator(host: host, projectID: projectID, transport: transport)
        try await owner.document("failures/apple").setData(["name": "Apple", "kcal": 52])

        let retrying = try client(host: proxy, transport: transport, attempts: 3)
        let apple = try await retrying.document("failures/apple").getDocument()
        guard apple.data() == ["name": "Apple", "kcal": 52] else {
            throw RecordingScenarios.unexpected("failures/apple read through the proxy: \(apple.data() ?? [:])")
        }

        let refusing = try RefusingPort()
        defer { refusing.close() }
        let refused = try client(host: "127.0.0.1:\(refusing.port)", transport: transport, attempts: 1)
        try await expectFailure(.unavailable, "a read from a port that refuses connections") {
            _ = try await refused.document("failures/apple").getDocument()
        }
        let refusedTwice = try client(host: "127.0.0.1:\(refusing.port)", transport: transport, attempts: 2)
        try await expectFailure(.unavailable, "a write to a port that refuses connections") {
            try await refusedTwice.document("failures/apple").updateData(["kcal": 53])
        }
    }

    /// An emulator client of `host` whose failed requests are retried up to `attempts` times in all.
    static func client(host: String, transport: any HTTPTransport, attempts: Int) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: projectID), baseURL: "http://\(host)/v1/",
            credentials: EmulatorOwnerCredentials(), transport: transport, isEmulator: true,
            retryPolicy: RetryPolicy(maxAttempts: attempts))
    }

    /// `body` fails with `code` and no response (a transport failure).
    static func expectFailure(_ code: FirestoreError.Code, _ what: String, _ body: () async throws -> Void)
        async throws
    {
        do {
            try await body()
        } catch let error as FirestoreError where error.code == code && error.httpStatus == nil {
            return
        }
        throw RecordingScenarios.unexpected("\(what) did not fail with \(code.name) and no response")
    }
}

/// A TCP socket bound to a free loopback port and never listening, so connections to the port are refused (and no
/// other process can take the port meanwhile).
struct RefusingPort {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RecordingScenarios.unexpected("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(descriptor)
            throw RecordingScenarios.unexpected("could not bind a loopback port: errno \(errno)")
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    func close() { Glibc.close(descriptor) }
}

extension FailuresScenario {
    /// The recording holds what the scenario is meant to show: the seed, the read reset, timed out and answered, the
    /// refused read and the write refused twice.
    static func check(_ cassette: Cassette) throws(FirestoreError) {
        let seen = cassette.interactions.map { interaction in
            "\(interaction.request.method) \(interaction.failure.map { $0.kind.rawValue } ?? "\(interaction.response.status)")"
        }
        let expected = [
            "POST 200", "GET reset", "GET timeout", "GET 200", "GET refused", "POST refused", "POST refused",
        ]
        guard seen == expected else {
            throw RecordingScenarios.unexpected("recorded \(seen), expected \(expected)")
        }
    }
}

/// Sends requests to the fault proxy through `short` and every other request through `other`.
struct ProxyTimeoutTransport: HTTPTransport {
    let proxy: String?
    let short: CurlTransport
    let other: CurlTransport

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        if let proxy, request.url.hasPrefix("http://\(proxy)/") { return try await short.send(request) }
        return try await other.send(request)
    }
}
