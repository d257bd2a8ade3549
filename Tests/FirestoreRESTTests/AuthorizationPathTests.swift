import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The `Authorization` header in the client's request path: one refresh and one resend after a `401`, and the
/// audience rules of field case E-29 (the owner token only to an emulator, real credentials never to one).
@Suite("Authorization in the request path", .timeLimit(.minutes(2)))
struct AuthorizationPathTests {
    static func authorizations(_ transport: ScriptedTransport) -> [String?] {
        transport.requests.map { request in request.headers.first { $0.matches("Authorization") }?.value }
    }

    static let unauthenticated = HTTPResponse.error(
        401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")

    @Test func a401RefreshesTheTokenOnceAndSendsOnceMore() async throws {
        let transport = ScriptedTransport { _, index in
            index == 0 ? Self.unauthenticated : .ok(["name": "projects/p/databases/(default)/documents/c/d"])
        }
        let credentials = CountingCredentials()
        let db = try transport.firestore(credentials: credentials, retryPolicy: .none)
        let snapshot = try await db.document("c/d").getDocument()
        #expect(snapshot.exists)
        #expect(Self.authorizations(transport) == ["Bearer t1", "Bearer t2"])
        #expect(credentials.invalidated == ["Bearer t1"])
    }

    @Test func aSecond401IsReturnedAsUnauthenticated() async throws {
        let transport = ScriptedTransport { _, _ in Self.unauthenticated }
        let credentials = CountingCredentials()
        let db = try transport.firestore(credentials: credentials, retryPolicy: .default)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .unauthenticated)
        #expect(error?.message == "Request had invalid authentication credentials.")
        #expect(Self.authorizations(transport) == ["Bearer t1", "Bearer t2"])
    }

    @Test func a401OnACommitIsRefreshedToo() async throws {
        // A 401 means the request was refused before anything was applied, so even a commit is sent again.
        let transport = ScriptedTransport { _, index in index == 0 ? Self.unauthenticated : .ok([:]) }
        let db = try transport.firestore(credentials: CountingCredentials(), retryPolicy: .none)
        try await db.commit([])
        #expect(transport.calls == ["POST :commit", "POST :commit"])
        #expect(Self.authorizations(transport) == ["Bearer t1", "Bearer t2"])
    }

    @Test func aStaticTokenIsNotRefreshed() async throws {
        let transport = ScriptedTransport { _, _ in Self.unauthenticated }
        let db = try transport.firestore(
            credentials: StaticTokenCredentials(token: "ya29.fixed"), retryPolicy: .none)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .unauthenticated)
        #expect(Self.authorizations(transport) == ["Bearer ya29.fixed"])
    }

    @Test func productionCredentialsAreNeverSentToAnEmulator() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let db = try transport.firestore(
            credentials: StaticTokenCredentials(token: "ya29.real"), retryPolicy: .none,
            baseURL: "http://127.0.0.1:8080/v1/", isEmulator: true)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "refusing to send production credentials (StaticTokenCredentials) to the emulator at "
                + "http://127.0.0.1:8080/v1/; an emulator gets EmulatorOwnerCredentials or emulator-audience credentials"
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func theOwnerTokenIsNeverSentToProduction() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let db = try Firestore(projectID: "p", credentials: EmulatorOwnerCredentials(), transport: transport)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "refusing to send emulator credentials (EmulatorOwnerCredentials) to "
                + "https://firestore.googleapis.com:443/v1/, which is not an emulator")
        #expect(transport.requests.isEmpty)
    }

    @Test func aFakeIDTokenForRulesTestsMayGoToAnEmulator() async throws {
        let transport = ScriptedTransport { _, _ in .ok(["name": "projects/p/databases/(default)/documents/c/d"]) }
        let db = try transport.firestore(
            credentials: StaticTokenCredentials(token: "eyJhbGciOiJub25lIn0.e30.", audience: .emulator),
            retryPolicy: .none, baseURL: "http://127.0.0.1:8080/v1/", isEmulator: true)
        _ = try await db.document("c/d").getDocument()
        #expect(Self.authorizations(transport) == ["Bearer eyJhbGciOiJub25lIn0.e30."])
    }

    @Test func realCredentialsAreNotSentOverPlainHTTPExceptToLoopback() async throws {
        let transport = ScriptedTransport { _, _ in .ok(["name": "projects/p/databases/(default)/documents/c/d"]) }
        let remote = try transport.firestore(
            credentials: StaticTokenCredentials(token: "ya29.real"), retryPolicy: .none,
            baseURL: "http://firestore.example.com/v1/")
        let error = await #expect(throws: FirestoreError.self) { try await remote.document("c/d").getDocument() }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "refusing to send credentials (StaticTokenCredentials) over plain http to "
                + "http://firestore.example.com:80/v1/projects/p/databases/(default)/documents/c/d; use https")
        #expect(transport.requests.isEmpty)

        let loopback = try transport.firestore(
            credentials: StaticTokenCredentials(token: "ya29.real"), retryPolicy: .none,
            baseURL: "http://127.0.0.1:9/v1/")
        _ = try await loopback.document("c/d").getDocument()
        #expect(Self.authorizations(transport) == ["Bearer ya29.real"])
    }

    @Test(arguments: [
        ("https://firestore.googleapis.com/v1/x", true),
        ("http://127.0.0.1:8080/v1/x", true),
        ("http://localhost/v1", true),
        ("http://[::1]:9/v1", true),
        ("http://user@127.0.0.1/v1", true),
        ("http://127.0.0.1.evil.com/v1", false),
        ("http://firestore.googleapis.com/v1", false),
        ("ftp://127.0.0.1/x", false),
    ])
    func urlsSafeForCredentials(url: String, expected: Bool) {
        #expect(Firestore.isSafeForCredentials(url) == expected)
    }

    @Test func theQuotaProjectIsSentAsXGoogUserProject() async throws {
        let transport = ScriptedTransport { _, _ in .ok(["name": "projects/p/databases/(default)/documents/c/d"]) }
        let db = try transport.firestore(
            credentials: CountingCredentials(quotaProjectID: "billing-project"), retryPolicy: .none)
        _ = try await db.document("c/d").getDocument()
        #expect(
            transport.requests.first?.headers == [
                HTTPHeader("Accept", "application/json"), HTTPHeader("Authorization", "Bearer t1"),
                HTTPHeader("x-goog-user-project", "billing-project"),
            ])
    }
}
