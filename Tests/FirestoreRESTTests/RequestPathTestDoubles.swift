import FirestoreTestSupport
import Foundation
import Synchronization

@testable import FirestoreREST

/// Credentials that hand out `Bearer t1`, `Bearer t2`, ... : a new token after each `invalidate`.
final class CountingCredentials: Credentials {
    private let state = Mutex<(generation: Int, invalidated: [String])>((1, []))
    let audience: CredentialsAudience
    let quotaProjectID: String?

    init(audience: CredentialsAudience = .production, quotaProjectID: String? = nil) {
        self.audience = audience
        self.quotaProjectID = quotaProjectID
    }

    /// The refused headers passed to `invalidate`, in order.
    var invalidated: [String] { state.withLock { $0.invalidated } }

    func authorizationHeader() async throws -> String? {
        "Bearer t\(state.withLock { $0.generation })"
    }

    func invalidate(refusedHeader: String) async -> Bool {
        state.withLock { state in
            state.invalidated.append(refusedHeader)
            if refusedHeader == "Bearer t\(state.generation)" { state.generation += 1 }
        }
        return true
    }
}

/// Credentials whose token cannot be obtained.
struct FailingCredentials: Credentials {
    let error: FirestoreError
    func authorizationHeader() async throws -> String? { throw error }
}

extension ScriptedTransport {
    /// A production-style client (isEmulator false) for project `p` on this transport.
    func firestore(
        credentials: any Credentials, retryPolicy: RetryPolicy, baseURL: String = "https://test.invalid/v1/",
        isEmulator: Bool = false
    ) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: baseURL, credentials: credentials, transport: self,
            isEmulator: isEmulator, retryPolicy: retryPolicy)
    }
}

/// A transport that throws the given errors in order, then answers `then` (or 200 `{}`).
final class ThrowingTransport: HTTPTransport {
    private let state: Mutex<(errors: [FirestoreError], attempts: Int)>
    private let response: HTTPResponse

    init(errors: [FirestoreError], then response: HTTPResponse = .ok([:])) {
        state = Mutex((errors, 0))
        self.response = response
    }

    /// How many requests were sent.
    var attempts: Int { state.withLock { $0.attempts } }

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        let error: FirestoreError? = state.withLock { state in
            state.attempts += 1
            return state.errors.isEmpty ? nil : state.errors.removeFirst()
        }
        if let error { throw error }
        return response
    }
}

/// A runQuery body with one document `c/d`.
let oneDocumentRunQueryBody: JSONValue = [
    [
        "document": [
            "name": "projects/p/databases/(default)/documents/c/d", "fields": [:],
            "createTime": "2024-05-01T00:00:00Z", "updateTime": "2024-05-01T00:00:00Z",
        ],
        "readTime": "2024-05-01T00:00:01Z",
    ]
]
