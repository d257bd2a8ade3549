import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// Retries in the client's request path (`Firestore.perform`): which calls are retried, how long the client
/// waits (recorded by a clock that does not sleep), and that a commit is never retried blindly (field case D-27).
@Suite("Request retries", .timeLimit(.minutes(2)))
struct RequestRetryTests {
    /// A policy without jitter, so the waits are exact.
    static func policy(_ clock: CountingClock, maxAttempts: Int = 5) -> RetryPolicy {
        RetryPolicy(maxAttempts: maxAttempts, jitter: 0, clock: clock)
    }

    static let structuredQuery = StructuredQuery(from: .init(collectionID: "c"))

    @Test func runQueryIsRetriedOn503And429HonouringRetryAfter() async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { _, index in
            switch index {
            case 0: return .error(503, "UNAVAILABLE", "The service is currently unavailable.")
            case 1:
                var response = HTTPResponse.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.")
                response.headers = [HTTPHeader("Retry-After", "1")]
                return response
            default: return .ok(oneDocumentRunQueryBody)
            }
        }
        let db = try transport.firestore(credentials: NoCredentials(), retryPolicy: Self.policy(clock))
        let result = try await db.runQuery(parent: .root, structuredQuery: Self.structuredQuery)
        #expect(result.documents.map(\.name) == ["projects/p/databases/(default)/documents/c/d"])
        #expect(transport.calls == ["POST :runQuery", "POST :runQuery", "POST :runQuery"])
        #expect(clock.requestedDelays == [.milliseconds(250), .seconds(1)])  // back-off, then Retry-After (> 500 ms)
    }

    @Test func getGivesUpAfterMaxAttemptsWithTheLastError() async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { _, index in .error(500, "INTERNAL", "attempt \(index)") }
        let db = try transport.firestore(credentials: NoCredentials(), retryPolicy: Self.policy(clock))
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .internal)
        #expect(error?.message == "attempt 4")
        #expect(transport.calls == Array(repeating: "GET /c/d", count: 5))
        #expect(clock.requestedDelays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2)])
    }

    @Test func listAndListCollectionIdsAndBatchGetAreRetried() async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { request, index in
            if index % 2 == 0 { return .error(503, "UNAVAILABLE", "busy") }
            if request.url.hasSuffix(":listCollectionIds") { return .ok(["collectionIds": ["c"]]) }
            if request.url.hasSuffix(":batchGet") {
                return .ok([
                    ["missing": "projects/p/databases/(default)/documents/c/x", "readTime": "2024-05-01T00:00:01Z"]
                ])
            }
            return .ok([:])
        }
        let db = try transport.firestore(credentials: NoCredentials(), retryPolicy: Self.policy(clock))
        #expect(try await db.collection("c").listDocuments().isEmpty)
        #expect(try await db.listCollectionIds() == ["c"])
        let batch = try await db.batchGet(names: ["projects/p/databases/(default)/documents/c/x"])
        #expect(batch.missing == ["projects/p/databases/(default)/documents/c/x"])
        #expect(
            transport.calls == [
                "GET /c?pageSize=300", "GET /c?pageSize=300", "POST :listCollectionIds", "POST :listCollectionIds",
                "POST :batchGet", "POST :batchGet",
            ])
    }

    @Test func anErrorElementInA200StreamIsRetriedForAnIdempotentCall() async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { _, index in
            if index == 0 {
                return HTTPResponse(
                    status: 200,
                    body: Data(#"[{"error":{"code":503,"message":"backend gone","status":"UNAVAILABLE"}}]"#.utf8))
            }
            return .ok(oneDocumentRunQueryBody)
        }
        let db = try transport.firestore(credentials: NoCredentials(), retryPolicy: Self.policy(clock))
        let result = try await db.runQuery(parent: .root, structuredQuery: Self.structuredQuery)
        #expect(result.documents.count == 1)
        #expect(transport.requests.count == 2)
    }

    @Test func commitIsNeverRetriedAfterAnUnclearFailure() async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { _, _ in .error(503, "UNAVAILABLE", "The service is currently unavailable.")
        }
        let db = try transport.firestore(credentials: NoCredentials(), retryPolicy: Self.policy(clock))
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").setData(["a": 1]) }
        #expect(error?.code == .unavailable)
        #expect(transport.calls == ["POST :commit"])
        #expect(clock.requestedDelays == [])
    }

    @Test func commitIsNeverRetriedAfterATimeout() async throws {
        let clock = CountingClock()
        let transport = ThrowingTransport(errors: [
            FirestoreError(code: .deadlineExceeded, message: "timed out: https://test.invalid:443/v1/...")
        ])
        let db = Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "https://test.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false, retryPolicy: Self.policy(clock))
        let error = await #expect(throws: FirestoreError.self) { try await db.commit([]) }
        #expect(error?.code == .deadlineExceeded)
        #expect(transport.attempts == 1)
    }

    @Test func commitIsRetriedWhenTheRequestProvablyNeverLeft() async throws {
        let clock = CountingClock()
        var refused = FirestoreError(code: .unavailable, message: "could not connect: https://test.invalid:443/v1/")
        refused.requestWasNotSent = true
        let transport = ThrowingTransport(errors: [refused], then: .ok(["commitTime": "2024-05-01T00:00:02Z"]))
        let db = Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "https://test.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false, retryPolicy: Self.policy(clock))
        let response = try await db.commit([])
        #expect(response.commitTime == ts(1_714_521_602))
        #expect(transport.attempts == 2)
        #expect(clock.requestedDelays == [.milliseconds(250)])
    }

    @Test func aResponseOverTheSizeCapIsNotRetried() async throws {
        let clock = CountingClock()
        var tooBig = FirestoreError(
            code: .resourceExhausted, message: "response body exceeds maxResponseBytes (1000 bytes): https://x:443/")
        tooBig.isNeverRetried = true
        let transport = ThrowingTransport(errors: [tooBig, tooBig])
        let db = Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "https://test.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false, retryPolicy: Self.policy(clock))
        let error = await #expect(throws: FirestoreError.self) {
            try await db.runQuery(parent: .root, structuredQuery: Self.structuredQuery)
        }
        #expect(error?.code == .resourceExhausted)
        #expect(transport.attempts == 1)
    }

    @Test func permanentErrorsAreNotRetried() async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { _, _ in
            .error(400, "FAILED_PRECONDITION", "The query requires an index.")
        }
        let db = try transport.firestore(credentials: NoCredentials(), retryPolicy: Self.policy(clock))
        let error = await #expect(throws: FirestoreError.self) {
            try await db.runQuery(parent: .root, structuredQuery: Self.structuredQuery)
        }
        #expect(error?.code == .failedPrecondition)
        #expect(transport.requests.count == 1)
    }

    @Test func aRetryAfterLongerThanTheLimitEndsTheRetries() async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { _, _ in
            var response = HTTPResponse.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.")
            response.headers = [HTTPHeader("Retry-After", "120")]
            return response
        }
        let db = try transport.firestore(credentials: NoCredentials(), retryPolicy: Self.policy(clock))
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .resourceExhausted)
        #expect(transport.requests.count == 1)
        #expect(clock.requestedDelays == [])
    }

    @Test func anEmulatorClientDoesNotRetry() async throws {
        let transport = ScriptedTransport { _, _ in .error(503, "UNAVAILABLE", "down") }
        let db = try Firestore.emulator(host: "127.0.0.1:8080", projectID: "p", transport: transport)
        #expect(db.retryPolicy.maxAttempts == 1)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .unavailable)
        #expect(transport.requests.count == 1)
        #expect(transport.requests.first?.headers.first { $0.matches("Authorization") }?.value == "Bearer owner")
        #expect(transport.requests.first?.url.hasPrefix("http://127.0.0.1:8080/v1/") == true)
    }

    @Test func aTokenThatCannotBeObtainedIsRetriedEvenForACommit() async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let credentials = FailingCredentials(
            error: FirestoreError(code: .unavailable, message: "token request: could not connect"))
        let db = try transport.firestore(credentials: credentials, retryPolicy: Self.policy(clock, maxAttempts: 3))
        let error = await #expect(throws: FirestoreError.self) { try await db.commit([]) }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "token request: could not connect")
        #expect(transport.requests.isEmpty)
        #expect(clock.requestedDelays == [.milliseconds(250), .milliseconds(500)])
    }

    @Test func cancellingDuringTheBackoffThrowsCancelled() async throws {
        let transport = ScriptedTransport { _, _ in .error(503, "UNAVAILABLE", "down") }
        let clock = ManualClock()
        let db = try transport.firestore(
            credentials: NoCredentials(),
            retryPolicy: RetryPolicy(initialBackoff: .seconds(30), jitter: 0, clock: clock))
        let task = Task { try await db.document("c/d").getDocument() }
        // Cancelled once the first attempt failed and the 30 s back-off sleeps on the clock, which never moves.
        try #require(await clock.waitForSleepers(1))
        task.cancel()
        let error = await #expect(throws: FirestoreError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(
            error?.message
                == "request cancelled: https://test.invalid:443/v1/projects/p/databases/(default)/documents/c/d")
        #expect(transport.requests.count == 1)
    }

    @Test(
        arguments: [
            ("GET", "projects/p/databases/(default)/documents/c/d", nil, true),
            ("POST", "projects/p/databases/(default)/documents:runQuery", nil, true),
            ("POST", "projects/p/databases/(default)/documents/c/d:runQuery", nil, true),
            ("POST", "projects/p/databases/(default)/documents:batchGet", nil, true),
            ("POST", "projects/p/databases/(default)/documents:runAggregationQuery", nil, true),
            ("POST", "projects/p/databases/(default)/documents:listCollectionIds", nil, true),
            ("POST", "projects/p/databases/(default)/documents:runQuery", #"{"newTransaction":{}}"#, false),
            ("POST", "projects/p/databases/(default)/documents:commit", nil, false),
            ("POST", "projects/p/databases/(default)/documents:beginTransaction", nil, false),
            ("POST", "projects/p/databases/(default)/documents:rollback", nil, false),
            ("POST", "projects/p/databases/(default)/documents/c", nil, false),
            ("PATCH", "projects/p/databases/(default)/documents/c/d", nil, false),
            ("DELETE", "projects/p/databases/(default)/documents/c/d", nil, false),
            ("POST", "projects/p/databases/(default)/documents/c/a%3ArunQuery", nil, false),
        ] as [(String, String, String?, Bool)])
    func idempotentCalls(method: String, resource: String, body: String?, expected: Bool) throws {
        let parsed = try body.map { try json($0) }
        #expect(Firestore.isIdempotent(method: method, resource: resource, body: parsed) == expected)
    }
}
