import FirestoreTestSupport
import Foundation
import Synchronization

@testable import FirestoreREST

/// A batchWrite server in memory: answers each write of a request by a rule of its document and attempt, records
/// every request's documents, and can hold requests until opened.
final class BatchWriteServer: HTTPTransport {
    /// The `google.rpc.Status` code and message for the `attempt`-th write (from 1) to document `id` (the path below
    /// the documents root), or `nil` for success.
    typealias Rule = @Sendable (_ id: String, _ attempt: Int) -> (code: Int, message: String)?

    /// The update time every successful non-delete write gets: 2026-01-01T00:00:01Z.
    static let updateTime = "2026-01-01T00:00:01Z"
    static let root = "projects/p/databases/(default)/documents/"

    private struct State {
        var requests: [[String]] = []
        var attempts: [String: Int] = [:]
        var gated: Bool
        var waiting: [CheckedContinuation<Void, Never>] = []
        var inFlight = 0
        var maxInFlight = 0
    }

    private let state: Mutex<State>
    private let rule: Rule
    private let requestFailure: @Sendable (Int) -> HTTPResponse?

    /// - Parameters:
    ///   - gated: hold every request until ``open()``.
    ///   - requestFailure: the response to request *n* (from 0) as a whole instead of the rule's, or `nil`.
    init(
        gated: Bool = false, requestFailure: @escaping @Sendable (Int) -> HTTPResponse? = { _ in nil },
        rule: @escaping Rule = { _, _ in nil }
    ) {
        self.state = Mutex(State(gated: gated))
        self.rule = rule
        self.requestFailure = requestFailure
    }

    /// Each request's documents (paths below the root), in the order the requests arrived.
    var requests: [[String]] { state.withLock { $0.requests } }
    /// How many requests were being answered at once, at most.
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// Lets held requests (and later ones) through.
    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.gated = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        let body = (try? JSONValue.parse(request.body ?? Data())) ?? .null
        let ids: [String] = (body["writes"]?.arrayValue ?? []).map { write in
            let name = write["update"]?["name"]?.stringValue ?? write["delete"]?.stringValue ?? "?"
            return String(name.dropFirst(Self.root.count))
        }
        let index = state.withLock { state in
            state.requests.append(ids)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return state.requests.count - 1
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if state.gated { state.waiting.append(continuation) }
                return !state.gated
            }
            if open { continuation.resume() }
        }
        if let failure = requestFailure(index) { return failure }
        var results: [JSONValue] = []
        var statuses: [JSONValue] = []
        for (id, write) in zip(ids, body["writes"]?.arrayValue ?? []) {
            let attempt = state.withLock { state in
                state.attempts[id, default: 0] += 1
                return state.attempts[id, default: 0]
            }
            if let (code, message) = rule(id, attempt) {
                results.append(.object([:]))
                statuses.append(["code": .integer(Int64(code)), "message": .string(message)])
            } else {
                results.append(write["delete"] != nil ? .object([:]) : ["updateTime": .string(Self.updateTime)])
                statuses.append(.object([:]))
            }
        }
        return .ok(["writeResults": .array(results), "status": .array(statuses)])
    }

    /// A client for project `p` on this server.
    func firestore() throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: self, isEmulator: false)
    }
}

/// Collects what a BulkWriter's callbacks hear.
final class BulkWriterEvents: Sendable {
    private let state = Mutex<(results: [String], errors: [String])>(([], []))

    var results: [String] { state.withLock { $0.results } }
    var errors: [String] { state.withLock { $0.errors } }

    func result(_ document: DocumentReference) { state.withLock { $0.results.append(document.path) } }
    func error(_ error: BulkWriterError) { state.withLock { $0.errors.append("\(error)") } }
}

/// Polls `condition` every 10 ms for up to 30 s (the suite runs hundreds of tests at once on 2 cores).
func pollUntil(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<3000 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
