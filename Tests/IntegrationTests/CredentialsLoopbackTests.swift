import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST

/// Credential providers against a loopback token endpoint and metadata server (`LoopbackAuthServer`): the
/// grant requests they send, one token request for many concurrent callers, and the `401` refresh.
@Suite("Credentials over loopback", .timeLimit(.minutes(2)))
struct CredentialsLoopbackTests {
    /// Service-account credentials whose `token_uri` is the loopback server's `route`.
    static func serviceAccount(
        _ server: LoopbackAuthServer, route: String = "/token", clock: WallClock = WallClock(), in folder: URL
    ) async throws -> ServiceAccountCredentials {
        try await OpenSSLTool.makeRSAKey(in: folder)
        let key = try ServiceAccountKey(
            json: OpenSSLTool.serviceAccountJSON(in: folder, tokenURI: server.baseURL + route))
        return ServiceAccountCredentials(key: key, now: { clock.now })
    }

    @Test func serviceAccountSendsTheJWTBearerGrantAndUsesTheToken() async throws {
        let folder = try OpenSSLTool.temporaryFolder("sa-grant")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await LoopbackAuthServer.with { server in
            let credentials = try await Self.serviceAccount(server, in: folder)
            let db = try server.firestore(credentials: credentials)
            let snapshot = try await db.document("c/d").getDocument()
            #expect(snapshot.get("ok") == .boolean(true))

            let log = try await server.log()
            let request = try #require(log["token_requests"]?.arrayValue?.first)
            #expect(request["content_type"] == "application/x-www-form-urlencoded")
            let form = try await server.tokenForms()
            #expect(form.count == 1)
            #expect(form.first?["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer")
            #expect(form.first.map { Set($0.keys) } == ["grant_type", "assertion"])
            // The assertion is the JWT for the clock's time, with the loopback token_uri as audience.
            let assertion = try #require(form.first?["assertion"])
            let parts = try ServiceAccountJWTTests.split(assertion)
            #expect(
                parts.claims
                    == #"{"aud":"\#(server.baseURL)/token","exp":1767229200,"iat":1767225600,"#
                    + #""iss":"feed-test@demo-sa-project.iam.gserviceaccount.com","#
                    + #""scope":"https://www.googleapis.com/auth/datastore"}"#)
            #expect(
                try await ServiceAccountJWTTests.verify(parts.signingInput, parts.signature, in: folder).status == 0)
            #expect(try await server.documentAuthorizations() == ["Bearer ya29.token-1"])
        }
    }

    @Test func fiftyConcurrentRequestsWithAnExpiredTokenCauseOneTokenRequest() async throws {
        let folder = try OpenSSLTool.temporaryFolder("sa-fifty")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await LoopbackAuthServer.with { server in
            let clock = WallClock()
            let credentials = try await Self.serviceAccount(server, clock: clock, in: folder)
            let db = try server.firestore(
                credentials: credentials, transport: CurlTransport(configuration: .init(maxConnections: 16)))
            _ = try await db.document("c/first").getDocument()
            #expect(try await server.tokenForms().count == 1)

            clock.advance(by: 3600)  // token-1 (3599 s) has expired
            let found = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<50 {
                    group.addTask { try await db.document("c/d\(index)").getDocument().exists }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(found == 50)
            #expect(try await server.tokenForms().count == 2)
            let authorizations = try await server.documentAuthorizations()
            #expect(authorizations.count == 51)
            #expect(authorizations.first == "Bearer ya29.token-1")
            #expect(Array(authorizations.dropFirst()) == Array(repeating: "Bearer ya29.token-2", count: 50))
            #expect(await credentials.tokenRefreshCount == 2)
        }
    }

    @Test func a401ThenSuccess() async throws {
        let folder = try OpenSSLTool.temporaryFolder("sa-401")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await LoopbackAuthServer.with { server in
            let db = try server.firestore(credentials: try await Self.serviceAccount(server, in: folder))
            // The server refuses token-1 for documents under "strict/": the client refreshes once and resends once.
            let snapshot = try await db.document("strict/d").getDocument()
            #expect(snapshot.exists)
            #expect(try await server.documentAuthorizations() == ["Bearer ya29.token-1", "Bearer ya29.token-2"])
            #expect(try await server.tokenForms().count == 2)
        }
    }

    @Test func a401AfterTheRefreshIsThrown() async throws {
        let folder = try OpenSSLTool.temporaryFolder("sa-401x2")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await LoopbackAuthServer.with { server in
            let db = try server.firestore(credentials: try await Self.serviceAccount(server, in: folder))
            let error = await #expect(throws: FirestoreError.self) {
                try await db.document("always401/d").getDocument()
            }
            #expect(error?.code == .unauthenticated)
            #expect(error?.message == "Request had invalid authentication credentials.")
            #expect(try await server.documentAuthorizations() == ["Bearer ya29.token-1", "Bearer ya29.token-2"])
        }
    }

    @Test func aRefusedGrantIsUnauthenticatedAndShowsNoSecret() async throws {
        let folder = try OpenSSLTool.temporaryFolder("sa-invalid")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await LoopbackAuthServer.with { server in
            let db = try server.firestore(
                credentials: try await Self.serviceAccount(server, route: "/token-invalid", in: folder))
            let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
            #expect(error?.code == .unauthenticated)
            #expect(
                error?.message
                    == "token request to \(server.baseURL)/token-invalid failed with HTTP 400: invalid_grant: "
                    + "Invalid JWT Signature.")
            #expect(try await server.documentAuthorizations() == [])
        }
    }

    @Test func anUnreachableTokenEndpointIsUnavailable() async throws {
        let folder = try OpenSSLTool.temporaryFolder("sa-down")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        try await withClosedLoopbackPort { port in
            let tokenURI = "http://127.0.0.1:\(port)/token"
            let key = try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(in: folder, tokenURI: tokenURI))
            let credentials = ServiceAccountCredentials(key: key)
            let error = await #expect(throws: FirestoreError.self) { try await credentials.authorizationHeader() }
            #expect(error?.code == .unavailable)
            #expect(error?.message.hasPrefix("token request: could not connect: \(tokenURI) (") == true)
        }
    }

    @Test func selfSignedJWTNeedsNoTokenRequest() async throws {
        let folder = try OpenSSLTool.temporaryFolder("sa-self")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        try await LoopbackAuthServer.with { server in
            let key = try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(in: folder))
            let db = try server.firestore(credentials: ServiceAccountCredentials(key: key, mode: .selfSignedJWT()))
            _ = try await db.document("c/d").getDocument()
            _ = try await db.document("c/e").getDocument()
            #expect(try await server.tokenForms().isEmpty)
            let authorizations = try await server.documentAuthorizations()
            #expect(authorizations.count == 2)
            #expect(authorizations[0] == authorizations[1])  // cached, not re-signed
            let jwt = try #require(authorizations[0]?.dropFirst("Bearer ".count))
            let parts = try ServiceAccountJWTTests.split(String(jwt))
            #expect(parts.claims.hasPrefix(#"{"aud":"https://firestore.googleapis.com/","#))
            #expect(
                try await ServiceAccountJWTTests.verify(parts.signingInput, parts.signature, in: folder).status == 0)
        }
    }

    @Test func authorizedUserSendsTheRefreshTokenGrantAndTheQuotaProject() async throws {
        try await LoopbackAuthServer.with { server in
            let json = #"""
                {"type":"authorized_user","client_id":"123.apps.googleusercontent.com",
                 "client_secret":"d-FL95Q19q7MQmFpd7hHD0Ty","refresh_token":"1//0g-refresh+token/x=",
                 "quota_project_id":"billing-project","token_uri":"\#(server.baseURL)/token"}
                """#
            let credentials = try AuthorizedUserCredentials(json: Data(json.utf8))
            let db = try server.firestore(credentials: credentials)
            _ = try await db.document("c/d").getDocument()
            #expect(
                try await server.tokenForms() == [
                    [
                        "grant_type": "refresh_token", "client_id": "123.apps.googleusercontent.com",
                        "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty", "refresh_token": "1//0g-refresh+token/x=",
                    ]
                ])
            let request = try #require(try await server.log()["document_requests"]?.arrayValue?.first)
            #expect(request["authorization"] == "Bearer ya29.token-1")
            #expect(request["user_project"] == "billing-project")
        }
    }

    @Test func metadataServerHonoursGCE_METADATA_HOST() async throws {
        try await LoopbackAuthServer.with { server in
            let environment = ["GCE_METADATA_HOST": "127.0.0.1:\(server.port)"]
            let credentials = MetadataServerCredentials(environment: environment)
            #expect(credentials.host == "127.0.0.1:\(server.port)")
            #expect(try await credentials.authorizationHeader() == "Bearer ya29.token-1")
            #expect(try await credentials.authorizationHeader() == "Bearer ya29.token-1")  // cached
            #expect(try await credentials.projectID() == "demo-metadata")
            let requests = try #require(try await server.log()["metadata_requests"]?.arrayValue)
            #expect(
                requests == [
                    [
                        "path": "/computeMetadata/v1/instance/service-accounts/default/token", "flavor": "Google",
                    ]
                ])
        }
    }

    @Test func applicationDefaultFallsBackToTheMetadataServerForCredentialsAndProject() async throws {
        let home = try OpenSSLTool.temporaryFolder("adc-home")
        defer { try? FileManager.default.removeItem(at: home) }
        try await LoopbackAuthServer.with { server in
            let environment = ["HOME": home.path, "GCE_METADATA_HOST": "127.0.0.1:\(server.port)"]
            let db = try await Firestore.applicationDefault(environment: environment)
            #expect(db.database.projectID == "demo-metadata")
            #expect(db.baseURL == "https://firestore.googleapis.com/v1/")
            #expect(db.isEmulator == false)
            #expect((db.credentials as? MetadataServerCredentials)?.host == "127.0.0.1:\(server.port)")
            #expect(try await db.credentials.authorizationHeader() == "Bearer ya29.token-1")
        }
    }

    @Test func applicationDefaultReadsGOOGLE_APPLICATION_CREDENTIALS() async throws {
        let folder = try OpenSSLTool.temporaryFolder("adc-sa")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        let path = folder.appendingPathComponent("service-account.json")
        try OpenSSLTool.serviceAccountJSON(in: folder).write(to: path)
        let db = try await Firestore.applicationDefault(
            environment: ["GOOGLE_APPLICATION_CREDENTIALS": path.path, "HOME": folder.path])
        #expect(db.database.projectID == "demo-sa-project")
        let credentials = try #require(db.credentials as? ServiceAccountCredentials)
        #expect(credentials.key.clientEmail == "feed-test@demo-sa-project.iam.gserviceaccount.com")
        #expect(credentials.mode == .tokenExchange)

        let named = try await Firestore.applicationDefault(
            projectID: "other", environment: ["GOOGLE_APPLICATION_CREDENTIALS": path.path])
        #expect(named.database.projectID == "other")
    }

    @Test func applicationDefaultUsesTheEmulatorWhenFIRESTORE_EMULATOR_HOSTIsSet() async throws {
        let folder = try OpenSSLTool.temporaryFolder("adc-emu")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        let path = folder.appendingPathComponent("service-account.json")
        try OpenSSLTool.serviceAccountJSON(in: folder).write(to: path)
        let db = try await Firestore.applicationDefault(
            environment: [
                "FIRESTORE_EMULATOR_HOST": "127.0.0.1:8080", "GOOGLE_CLOUD_PROJECT": "demo-emu",
                "GOOGLE_APPLICATION_CREDENTIALS": path.path,
            ])
        #expect(db.isEmulator)
        #expect(db.baseURL == "http://127.0.0.1:8080/v1/")
        #expect(db.credentials is EmulatorOwnerCredentials)  // the key is never sent to an emulator
        #expect(db.database.projectID == "demo-emu")
    }
}
