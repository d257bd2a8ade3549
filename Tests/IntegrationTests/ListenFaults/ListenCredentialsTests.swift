import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A Listen stream that outlives its access token: the server ends it with `UNAUTHENTICATED`, and the feed reopens it
/// at once with a fresh token from the token endpoint, without reporting a failure; a second refusal in a row ends the
/// feed. Service-account credentials whose token endpoint is `LoopbackAuthServer` (it issues `ya29.token-N`), a
/// scripted gRPC server that checks nothing and logs each call's `authorization`.
@Suite(.timeLimit(.minutes(2))) struct ListenCredentialsTests {
    typealias S = ListenScript

    static func feed(
        _ server: ScriptedGRPCServer, auth: LoopbackAuthServer, folder: URL, events: RecordedEvents
    ) async throws -> AsyncThrowingStream<QuerySnapshot, any Error>.AsyncIterator {
        try await OpenSSLTool.makeRSAKey(in: folder)
        let key = try ServiceAccountKey(
            json: OpenSSLTool.serviceAccountJSON(in: folder, tokenURI: auth.baseURL + "/token"))
        let db = Firestore(
            database: try DatabaseID(projectID: S.project), baseURL: "http://\(server.host)/v1/",
            credentials: ServiceAccountCredentials(key: key), transport: CurlTransport(), isEmulator: false,
            retryPolicy: .none)
        return db.collection("fruits").order(by: "n").snapshots(source: .listen, policy: ListenFaultFixture.policy) {
            events.note($0)
        }.makeAsyncIterator()
    }

    static func authorizations(_ server: ScriptedGRPCServer) -> [String] {
        server.events("call").compactMap { $0["headers"]?["authorization"]?.stringValue }
    }

    @Test func anExpiredTokenIsRenewedWithoutAFailure() async throws {
        let folder = try OpenSSLTool.temporaryFolder("listen-token")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ScriptedGRPCServer.start(
            script: S.script([
                S.snapshot(["a"], token: [1], readTime: 10) + [S.end(16, "the access token expired")],
                ListenCallEndTests.resumed,
            ]))
        try await LoopbackAuthServer.with { auth in
            let events = RecordedEvents()
            var feed = try await Self.feed(server, auth: auth, folder: folder, events: events)
            #expect(try await feed.next()?.documents.map(\.documentID) == ["a"])
            #expect(try await feed.next()?.documents.map(\.documentID) == ["a", "b"])
            #expect(events.lines == [])
            #expect(await server.wait { _ in Self.authorizations(server).count >= 2 })
            #expect(Self.authorizations(server) == ["Bearer ya29.token-1", "Bearer ya29.token-2"])
            let resume = try #require(await server.requests(call: 2, atLeast: 1).first)
            #expect(resume["addTarget"]?["resumeToken"] == "AQ==")
        }
    }

    @Test func aSecondRefusalInARowEndsTheFeed() async throws {
        let folder = try OpenSSLTool.temporaryFolder("listen-token-2")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ScriptedGRPCServer.start(
            script: S.script([
                S.snapshot(["a"], token: [1], readTime: 10) + [S.end(16, "the access token expired")],
                [S.awaitRequests(1), S.trailersOnly(16, "this key was revoked")],
            ]))
        try await LoopbackAuthServer.with { auth in
            let events = RecordedEvents()
            var feed = try await Self.feed(server, auth: auth, folder: folder, events: events)
            #expect(try await feed.next()?.documents.map(\.documentID) == ["a"])
            let error = await #expect(throws: FirestoreError.self) { _ = try await feed.next() }
            #expect(error?.description == "unauthenticated: this key was revoked")
            #expect(events.lines == [])
            #expect(await server.wait { _ in Self.authorizations(server).count >= 2 })
            #expect(Self.authorizations(server) == ["Bearer ya29.token-1", "Bearer ya29.token-2"])
        }
    }
}
