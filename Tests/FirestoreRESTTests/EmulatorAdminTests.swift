import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// `FirestoreEmulatorAdmin`'s requests and `EmulatorMockUserCredentials`' token, without a server (the emulator's
/// answers are `EmulatorAdminLiveTests`).
@Suite(.timeLimit(.minutes(2))) struct EmulatorAdminTests {
    static func admin(_ transport: ScriptedTransport, database: String = "(default)") throws -> FirestoreEmulatorAdmin {
        try FirestoreEmulatorAdmin(
            host: "http://127.0.0.1:8080/", projectID: "demo-rules", databaseID: database, transport: transport)
    }

    static func decoded(_ part: Substring) throws -> JSONValue {
        try JSONValue.parse(try #require(JSONWebToken.decodeBase64URL(String(part))))
    }

    @Test func clearDeletesTheDatabasesDocumentsWithTheOwnerToken() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        try await Self.admin(transport, database: "second").clearFirestore()
        let request = try #require(transport.requests.first)
        #expect(request.method == "DELETE")
        #expect(request.url == "http://127.0.0.1:8080/emulator/v1/projects/demo-rules/databases/second/documents")
        #expect(request.body == nil)
        #expect(request.headers.first { $0.matches("Authorization") }?.value == "Bearer owner")
    }

    @Test func loadingRulesPutsTheFilesAndReadingThemDecodesThem() async throws {
        let transport = ScriptedTransport { request, _ in
            request.method == "PUT"
                ? .ok([:])
                : .ok(["rules": ["files": [["name": "firestore.rules", "content": "A"], ["content": "B"]]]])
        }
        let admin = try Self.admin(transport)
        try await admin.loadFirestoreRules("rules_version = '2';")
        let rules = try await admin.firestoreRules()
        #expect(
            rules == [
                FirestoreEmulatorAdmin.RulesFile(name: "firestore.rules", content: "A"),
                FirestoreEmulatorAdmin.RulesFile(name: nil, content: "B"),
            ])
        #expect(
            transport.requests.map { "\($0.method) \($0.url)" } == [
                "PUT http://127.0.0.1:8080/emulator/v1/projects/demo-rules:securityRules",
                "GET http://127.0.0.1:8080/emulator/v1/projects/demo-rules:securityRules",
            ])
        #expect(
            transport.bodies.first
                == ["rules": ["files": [["name": "firestore.rules", "content": "rules_version = '2';"]]]])
    }

    @Test func errorsNameTheAdminCall() async throws {
        let transport = ScriptedTransport { _, _ in
            .error(400, "INVALID_ARGUMENT", "Error compiling rules:\nL1:1 Unexpected 'x'.")
        }
        let admin = try Self.admin(transport)
        let error = await #expect(throws: FirestoreError.self) { try await admin.loadFirestoreRules("x") }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message
                == "PUT emulator/v1/projects/demo-rules:securityRules: Error compiling rules:\nL1:1 Unexpected 'x'.")
        let none = await #expect(throws: FirestoreError.self) { try await admin.loadFirestoreRules(files: []) }
        #expect(none?.message == "security rules for demo-rules: no rules file")
        let answers = ScriptedTransport { _, _ in .ok(["rules": ["files": [["name": "x"]]]]) }
        let broken = await #expect(throws: FirestoreError.self) { try await Self.admin(answers).firestoreRules() }
        #expect(broken?.code == .internal)
        #expect(broken?.message == "security rules for demo-rules: rules.files[0] has no content")
        #expect(transport.requests.count == 1)  // the empty list was refused before sending
    }

    @Test func contextsSendTheirOwnCredentials() async throws {
        let transport = ScriptedTransport { _, _ in
            .ok(["name": "projects/demo-rules/databases/(default)/documents/c/d", "fields": [:]])
        }
        let admin = try Self.admin(transport)
        _ = try await admin.authenticatedContext(uid: "alice").document("c/d").getDocument()
        _ = try await admin.unauthenticatedContext().document("c/d").getDocument()
        _ = try await admin.withSecurityRulesDisabled { try await $0.document("c/d").getDocument() }
        let headers = transport.requests.map { $0.headers.first { $0.matches("Authorization") }?.value }
        let token = try EmulatorMockUserCredentials(uid: "alice", projectID: "demo-rules").token
        #expect(headers == ["Bearer " + token, nil, "Bearer owner"])
        #expect(transport.requests.allSatisfy { $0.url.hasPrefix("http://127.0.0.1:8080/v1/projects/demo-rules/") })
        #expect(try admin.authenticatedContext(uid: "alice").isEmulator)
        #expect(admin.unauthenticatedContext().retryPolicy.maxAttempts == 1)
    }

    @Test func theTokenIsAnUnsignedFirebaseIDToken() throws {
        let credentials = try EmulatorMockUserCredentials(
            uid: "alice", projectID: "demo-rules", claims: ["admin": true, "email": "alice@example.com", "exp": 99])
        let parts = credentials.token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts.last == "")  // no signature
        #expect(try Self.decoded(parts[0]) == ["alg": "none", "typ": "JWT"])
        #expect(
            try Self.decoded(parts[1]) == [
                "iss": "https://securetoken.google.com/demo-rules", "aud": "demo-rules", "iat": 0, "exp": 99,
                "auth_time": 0, "sub": "alice", "user_id": "alice",
                "firebase": ["sign_in_provider": "custom", "identities": [:]], "admin": true,
                "email": "alice@example.com",
            ])
        #expect(.object(credentials.payload) == (try Self.decoded(parts[1])))
        #expect(credentials.audience == .emulator)
        #expect(
            credentials.description
                == "EmulatorMockUserCredentials(uid: alice, project: demo-rules, claims: admin, email, exp)")
    }

    @Test func badUsersAndClaimsAreRefused() throws {
        func message(_ make: () throws -> EmulatorMockUserCredentials) -> String? {
            do {
                _ = try make()
                return nil
            } catch let error as FirestoreError where error.code == .invalidArgument {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(
            message { try EmulatorMockUserCredentials(uid: "", projectID: "p") }
                == "emulator user: uid must be 1 to 128 characters (Firebase Auth), got 0")
        #expect(
            message { try EmulatorMockUserCredentials(uid: String(repeating: "u", count: 129), projectID: "p") }
                == "emulator user: uid must be 1 to 128 characters (Firebase Auth), got 129")
        #expect(
            message { try EmulatorMockUserCredentials(uid: "a", projectID: "") } == "emulator user a: empty project ID")
        #expect(
            message { try EmulatorMockUserCredentials(uid: "a", projectID: "p", claims: ["uid": "a"]) }
                == "emulator user a: the claim \"uid\" is not a Firebase ID token claim; the user's ID is \"sub\", "
                + "which is the uid given")
        #expect(
            message { try EmulatorMockUserCredentials(uid: "a", projectID: "p", claims: ["sub": "b"]) }
                == "emulator user a: the claim \"sub\" (\"b\") must be the uid")
        #expect(message { try EmulatorMockUserCredentials(uid: "a", projectID: "p", claims: ["user_id": "a"]) } == nil)
    }

    /// The user's token goes only to an emulator: a production client refuses it before sending anything.
    @Test func aProductionClientRefusesTheToken() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let db = try transport.firestore(
            credentials: try EmulatorMockUserCredentials(uid: "alice", projectID: "p"), retryPolicy: .none)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .failedPrecondition)
        #expect(transport.requests.isEmpty)
    }
}
