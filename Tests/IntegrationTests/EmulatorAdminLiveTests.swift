import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `FirestoreEmulatorAdmin` on the real emulator: security rules decide reads and writes of end users
/// (`EmulatorMockUserCredentials`), unauthenticated clients and the owner, project by project; clearing removes one
/// project's documents only. Pins what the emulator does by default (the suite runs on one emulator started
/// without `--rules`, a project per test).
@Suite(.timeLimit(.minutes(2))) struct EmulatorAdminLiveTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{uid} {
              allow read, write: if request.auth != null
                && (request.auth.uid == uid || request.auth.token.get('admin', false) == true);
            }
            match /public/{id} {
              allow read: if true;
            }
          }
        }
        """

    static func admin(_ label: String) throws -> FirestoreEmulatorAdmin {
        try FirestoreEmulatorAdmin(
            host: EmulatorEnvironment.requireHost(), projectID: EmulatorEnvironment.uniqueProjectID(label))
    }

    @Test func aProjectWithoutLoadedRulesAllowsEverything() async throws {
        let admin = try Self.admin("openrules")
        let rules = try await admin.firestoreRules()
        #expect(rules.map(\.name) == ["OPEN_RULES"])
        #expect(rules.first?.content.contains("match /{document=**} {\n      allow read, write: if true;") == true)
        let nobody = admin.unauthenticatedContext()
        try await nobody.document("users/bob").setData(["n": 1])
        #expect(try await nobody.document("users/bob").getDocument().data() == ["n": 1])
    }

    @Test func rulesDecideWhoReadsAndWrites() async throws {
        let admin = try Self.admin("rules")
        try await admin.loadFirestoreRules(Self.rules)
        #expect(try await admin.firestoreRules() == [.init(name: "firestore.rules", content: Self.rules)])
        try await admin.withSecurityRulesDisabled { owner in
            try await owner.document("users/bob").setData(["name": "Bob"])
            try await owner.document("public/notice").setData(["text": "hello"])
        }
        let alice = try admin.authenticatedContext(uid: "alice")
        try await alice.document("users/alice").setData(["name": "Alice"])
        #expect(try await alice.document("users/alice").getDocument().data() == ["name": "Alice"])

        // Another user's document: denied, reads and writes, with the emulator's reasons.
        let write = await #expect(throws: FirestoreError.self) {
            try await alice.document("users/bob").setData(["name": "Mallory"])
        }
        #expect(write?.code == .permissionDenied)
        // Over gRPC (the default protocol) there is no HTTP status; the code and the emulator's reasons are the same.
        #expect(write?.httpStatus == nil)
        #expect(write?.message.hasPrefix("\n") == true)
        #expect(write?.description == "permission-denied: false for 'create' @ L5, false for 'update' @ L5")
        let read = await #expect(throws: FirestoreError.self) { try await alice.document("users/bob").getDocument() }
        #expect(read?.code == .permissionDenied)
        #expect(read?.message == "\nfalse for 'get' @ L5")

        // A custom claim the rules check.
        let root = try admin.authenticatedContext(uid: "root", claims: ["admin": true])
        #expect(try await root.document("users/bob").getDocument().data() == ["name": "Bob"])
        try await root.document("users/bob").updateData(["checked": true])

        // Nobody: denied on users, allowed on public.
        let nobody = admin.unauthenticatedContext()
        let anonymous = await #expect(throws: FirestoreError.self) {
            try await nobody.document("users/alice").getDocument()
        }
        #expect(anonymous?.code == .permissionDenied)
        #expect(try await nobody.document("public/notice").getDocument().data() == ["text": "hello"])
        let publicWrite = await #expect(throws: FirestoreError.self) {
            try await nobody.document("public/notice").setData(["text": "defaced"])
        }
        #expect(publicWrite?.code == .permissionDenied)

        // The owner bypasses the rules and sees that the denied writes changed nothing.
        let bob = try await admin.owner.document("users/bob").getDocument()
        #expect(bob.data() == ["name": "Bob", "checked": true])
        #expect(try await admin.owner.document("public/notice").getDocument().data() == ["text": "hello"])
    }

    @Test func aListenFeedIsJudgedByTheRulesToo() async throws {
        let admin = try Self.admin("rulesfeed")
        try await admin.loadFirestoreRules(Self.rules)
        try await admin.owner.document("users/alice").setData(["name": "Alice"])
        let alice = try admin.authenticatedContext(uid: "alice")
        var own = alice.document("users/alice").snapshots().makeAsyncIterator()
        let snapshot = try #require(try await own.next())
        #expect(snapshot.data() == ["name": "Alice"])
        var other = alice.document("users/bob").snapshots().makeAsyncIterator()
        let error = await #expect(throws: FirestoreError.self) { _ = try await other.next() }
        #expect(error?.code == .permissionDenied)
    }

    @Test func rulesBelongToOneProject() async throws {
        let locked = try Self.admin("locked")
        try await locked.loadFirestoreRules(
            "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents { "
                + "match /{x=**} { allow read, write: if false; } } }")
        let open = try Self.admin("unlocked")
        try await open.unauthenticatedContext().document("users/bob").setData(["n": 1])
        #expect(try await open.firestoreRules().map(\.name) == ["OPEN_RULES"])
        let denied = await #expect(throws: FirestoreError.self) {
            try await locked.unauthenticatedContext().document("users/bob").setData(["n": 1])
        }
        #expect(denied?.code == .permissionDenied)
        // Even a user the other project would allow.
        let user = await #expect(throws: FirestoreError.self) {
            try await locked.authenticatedContext(uid: "bob").document("users/bob").getDocument()
        }
        #expect(user?.code == .permissionDenied)
    }

    @Test func clearingRemovesEveryDocumentOfTheProjectOnly() async throws {
        let admin = try Self.admin("clear")
        let other = try Self.admin("clearother")
        try await admin.loadFirestoreRules(Self.rules)
        let owner = admin.owner
        try await owner.document("users/alice").setData(["n": 1])
        try await owner.document("users/alice/posts/p1").setData(["n": 2])
        try await owner.document("orphans/parent/children/c1").setData(["n": 3])  // a missing parent
        try await other.owner.document("users/alice").setData(["n": 9])
        try await admin.clearFirestore()
        #expect(try await owner.listCollectionIds() == [])
        #expect(try await owner.collectionGroup("posts").getDocuments().isEmpty)
        #expect(try await owner.collectionGroup("children").getDocuments().isEmpty)
        #expect(try await owner.document("users/alice").getDocument().exists == false)
        // The other project keeps its documents, and this one its rules.
        #expect(try await other.owner.document("users/alice").getDocument().data() == ["n": 9])
        #expect(try await admin.firestoreRules().map(\.content) == [Self.rules])
        // Clearing an empty project is fine.
        try await admin.clearFirestore()
    }

    @Test func rulesThatDoNotCompileAreAnInvalidArgumentNamingTheLine() async throws {
        let admin = try Self.admin("badrules")
        let error = await #expect(throws: FirestoreError.self) {
            try await admin.loadFirestoreRules("service cloud.firestore { match /x { allow read: if ; } }")
        }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message
                == "PUT emulator/v1/projects/\(admin.database.projectID):securityRules: Error compiling rules:\n"
                + "L1:53 Missing conditional expression after 'if'.")
        // The project keeps the rules it had.
        #expect(try await admin.firestoreRules().map(\.name) == ["OPEN_RULES"])
    }

    /// The emulator reads the user from the token's `sub` and does not check `aud` (a token issued for another
    /// project is accepted); a token that is not a JWT is refused.
    @Test func whatTheEmulatorChecksInAToken() async throws {
        let admin = try Self.admin("tokens")
        try await admin.loadFirestoreRules(Self.rules)
        let foreign = try EmulatorMockUserCredentials(uid: "alice", projectID: "another-project")
        let db = Firestore(
            database: admin.database, baseURL: admin.owner.baseURL, credentials: foreign,
            transport: admin.owner.transport, isEmulator: true, retryPolicy: .none)
        try await db.document("users/alice").setData(["n": 1])
        let garbage = Firestore(
            database: admin.database, baseURL: admin.owner.baseURL,
            credentials: GarbageEmulatorToken(), transport: admin.owner.transport, isEmulator: true,
            retryPolicy: .none)
        let error = await #expect(throws: FirestoreError.self) {
            try await garbage.document("users/alice").getDocument()
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "invalid jwt")
    }
}

/// `Bearer not-a-jwt`, for the emulator only.
private struct GarbageEmulatorToken: Credentials {
    func authorizationHeader() async throws -> String? { "Bearer not-a-jwt" }
    var audience: CredentialsAudience { .emulator }
}
